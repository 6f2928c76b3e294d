/** A recovering turn for the telemetry tests: its world, how it is taken, its spans' exporter and its metrics. */
import * as NodeSdk from "@effect/opentelemetry/NodeSdk"
import { Scripted } from "@fallback/testkit"
import type { InMemorySpanExporter } from "@opentelemetry/sdk-trace-base"
import { SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { type Duration, Effect, Fiber, Metric, Stream } from "effect"
import { TestClock } from "effect/testing"
import { Agent, Backend } from "../../src/index.js"
import { world } from "./world.js"

/** A world with its own places, so the global metrics of one test are not another's. */
export const outage = (id: string) => {
  const work = `claude@work/opus-${id}`
  const home = `claude@home/opus-${id}`
  const codex = `codex/gpt-${id}`
  return {
    work,
    home,
    codex,
    layer: world({
      script: {
        places: {
          [work]: [Scripted.fail("RateLimited")],
          [home]: [Scripted.fail("AuthRefused")],
          [codex]: [Scripted.answer("done")]
        }
      },
      chain: [work, codex],
      accounts: { claude: ["work", "home"] }
    })
  }
}

export type Mode = "whole" | "streamed"

export const take = (agent: Agent.Agent, mode: Mode) =>
  mode === "whole"
    ? Agent.ask(agent, "fix it")
    : Effect.map(Stream.runCollect(agent.turn("fix it")), Backend.textOf)

/** Takes one turn at `work`, the clock moved on (a minute) while it recovers. */
export const turnAt = (work: string, mode: Mode, recovery: Duration.Input = "1 minute") =>
  Effect.gen(function*() {
    const agent = yield* Agent.make(work)
    const fiber = yield* Effect.forkChild(take(agent, mode))
    yield* TestClock.adjust(recovery)
    return yield* Fiber.join(fiber)
  }).pipe(Effect.scoped)

export const traced = <A, E, R>(exporter: InMemorySpanExporter, effect: Effect.Effect<A, E, R>) =>
  Effect.provide(
    effect,
    NodeSdk.layer(() => ({ resource: { serviceName: "test" }, spanProcessor: new SimpleSpanProcessor(exporter) }))
  )

/** A metric's series whose labels include `labels`, as a snapshot has them. */
export const snapshots = (name: string, labels: Record<string, string>) =>
  Metric.snapshot.pipe(Effect.map((all) =>
    all.filter((snapshot) =>
      snapshot.id === name &&
      Object.entries(labels).every(([key, value]) => snapshot.attributes?.[key] === value)
    )
  ))

export const series = (name: string, labels: Record<string, string>) =>
  Effect.map(snapshots(name, labels), (all) => all.map((snapshot) => snapshot.state))

export const count = (name: string, labels: Record<string, string>) =>
  Effect.map(
    snapshots(name, labels),
    (all) =>
      all.reduce((total, snapshot) =>
        total + (snapshot.type === "Counter"
          ? Number(snapshot.state.count)
          : snapshot.type === "Histogram"
          ? snapshot.state.count
          : 0), 0)
  )
