/**
 * What an OpenTelemetry user sees of a recovering turn, continued: the metrics, the notices a
 * program's own logger gets, and a property of every turn's attempts, on the TestClock.
 */
import { describe, expect, it } from "@effect/vitest"
import { Scripted } from "@fallback/testkit"
import { InMemorySpanExporter } from "@opentelemetry/sdk-trace-base"
import type { Metric } from "effect"
import { Arbitrary, Duration, Effect, Fiber, Logger, References, Result, Schema } from "effect"
import { TestClock } from "effect/testing"
import { Agent, Failure, Notice, Place as PlaceModule, Secret, Telemetry } from "../../src/index.js"
import { count, type Mode, outage, series, take, traced, turnAt } from "./telemetry.js"
import { anyOf, between, oneOf, world } from "./world.js"

describe("metrics of a recovering turn", () => {
  it.effect("after 429 → wait → account move → place move → answer, each counter and histogram is exact", () =>
    Effect.gen(function*() {
      const { codex, home, layer, work } = outage("metrics")
      yield* Effect.provide(turnAt(work, "whole"), layer)
      const attempts = (place: string, outcome: string) =>
        count("fallback.attempts", { "fallback.place": place, "fallback.outcome": outcome })
      expect(yield* attempts(work, "RateLimited")).toBe(2)
      expect(yield* attempts(home, "AuthRefused")).toBe(1)
      expect(yield* attempts(codex, "answered")).toBe(1)
      expect(yield* count("fallback.attempts", { "fallback.place": work })).toBe(2)
      expect(yield* count("fallback.moves", { "fallback.place": work, "fallback.move.by": "account" })).toBe(1)
      expect(yield* count("fallback.moves", { "fallback.place": home, "fallback.move.by": "place" })).toBe(1)
      expect(yield* count("fallback.moves", { "fallback.place": work, "fallback.move.by": "place" })).toBe(0)
      const [waits] = yield* series("fallback.wait.duration", { "fallback.place": work })
      expect(waits).toMatchObject({ count: 1, sum: 30, min: 30, max: 30 })
      const [first] = yield* series("fallback.turn.time_to_first_content", { "fallback.place": codex })
      expect(first).toMatchObject({ count: 1, sum: 30 })
      const [whole] = yield* series("fallback.turn.duration", {
        "fallback.place": work,
        "fallback.outcome": "answered"
      })
      expect(whole).toMatchObject({ count: 1, sum: 30 })
      expect(yield* count("fallback.breaker.openings", { "fallback.place": work })).toBe(0)
    }))

  it.effect("a breaker that opens is counted, its place parked, then skipped, then cleared by its trial", () =>
    Effect.gen(function*() {
      const flaky = "claude/flaky-metrics"
      const layer = world({
        script: {
          places: { [flaky]: [Scripted.fail("NotInstalled"), Scripted.fail("NotInstalled"), Scripted.answer("ok")] }
        },
        breaker: { failures: 2, park: Duration.minutes(1) }
      })
      const parked = Effect.map(
        series("fallback.breaker.parked", { "fallback.place": flaky }),
        (states) => states.map((state) => (state as Metric.GaugeState<number>).value)
      )
      yield* Effect.gen(function*() {
        const agent = yield* Agent.make(flaky)
        yield* Effect.flip(Agent.ask(agent, "one"))
        yield* Effect.flip(Agent.ask(agent, "two"))
        expect(yield* count("fallback.breaker.openings", { "fallback.place": flaky })).toBe(1)
        expect(yield* parked).toEqual([1])
        yield* Effect.flip(Agent.ask(agent, "skipped"))
        expect(yield* count("fallback.skips", { "fallback.place": flaky, "fallback.skip.why": "parked" })).toBe(1)
        yield* TestClock.adjust("1 minute")
        expect(yield* Agent.ask(agent, "trial")).toBe("ok")
        expect(yield* parked).toEqual([0])
        expect(yield* count("fallback.attempts", { "fallback.place": flaky })).toBe(3)
      }).pipe(Effect.scoped, Effect.provide(layer))
    }))
})

describe("notices in a program's logger", () => {
  it.effect("a value the process holds as a secret is masked in a notice's span event and its log line", () => {
    const exporter = new InMemorySpanExporter()
    const held = "plain-canary-value-4417"
    Secret.hold(held)
    const at = Result.getOrThrow(PlaceModule.parse("claude@work/opus-held"))
    const notice = Notice.Notice.Stopping({
      place: at,
      failure: new Failure.Unknown({ place: at, said: Failure.said("refused") }),
      reason: `the next place wants ${held}`
    })
    const logged: Array<unknown> = []
    const mine = Logger.make(({ fiber, message }) =>
      logged.push([message, { ...fiber.getRef(References.CurrentLogAnnotations) }])
    )
    return Effect.gen(function*() {
      yield* Telemetry.noticed(notice).pipe(Effect.withSpan("outer"))
      const exported = JSON.stringify(exporter.getFinishedSpans().map((span) => span.events))
      expect(exported).toContain("fallback.stop")
      expect(exported).toContain("the next place wants ***")
      expect(exported).not.toContain(held)
      expect(JSON.stringify(logged)).toContain("the next place wants ***")
      expect(JSON.stringify(logged)).not.toContain(held)
    }).pipe(
      (effect) => traced(exporter, effect),
      Effect.provide(Logger.layer([mine]))
    )
  })
  it.effect("a replaced logger gets every notice with its annotations; Effect's console logger gets none", () =>
    Effect.gen(function*() {
      const { layer, work } = outage("logs")
      const logged: Array<{ message: unknown; level: string; annotations: Record<string, unknown> }> = []
      const mine = Logger.make(({ fiber, logLevel, message }) =>
        logged.push({
          message: Array.isArray(message) ? message[0] : message,
          level: logLevel.toUpperCase(),
          annotations: { ...fiber.getRef(References.CurrentLogAnnotations) }
        })
      )
      yield* turnAt(work, "whole").pipe(
        Effect.provide(layer),
        Effect.provide(Logger.layer([mine]))
      )
      expect(
        logged.map(({ annotations, level }) => [level, annotations["fallback.notice"], annotations["fallback.place"]])
      )
        .toEqual([
          ["INFO", "Retrying", work],
          ["INFO", "Moving", work],
          ["INFO", "Moving", `claude@home/opus-logs`]
        ])
      expect(logged[0]!.annotations["fallback.wait_ms"]).toBe(30000)
      expect(logged[0]!.annotations["error.type"]).toBe("RateLimited")
      expect(logged[0]!.message).toMatch(/trying again in 30s/)
    }))
})

describe("a property of every turn", () => {
  const kinds = ["RateLimited", "AuthRefused", "ModelNotFound", "StoreBusy", "Unknown", "Timeout"] as const
  const outcome = anyOf<"answer" | typeof kinds[number]>(Arbitrary.Constant("answer"), oneOf(kinds))
  it.effect.prop(
    "every attempt span has exactly one outcome, and the attempts counted are the requests the backends saw",
    {
      script: Arbitrary.array(Arbitrary.array(outcome, { minLength: 1, maxLength: 4 }), { minLength: 3, maxLength: 3 }),
      mode: oneOf<Mode>(["whole", "streamed"]),
      whole: Arbitrary.schema(Schema.Boolean),
      tracer: Arbitrary.schema(Schema.Boolean),
      turns: between(1, 3)
    },
    ({ mode, script, tracer, turns, whole }) => {
      const id = Math.random().toString(36).slice(2)
      const places = [`claude@a/m-${id}`, `claude@b/m-${id}`, `codex/m-${id}`]
      const exporter = new InMemorySpanExporter()
      const requests = Effect.map(Scripted.Scripted, (seen) => places.map((place) => seen.seen(place).turns))
      const attempts = Effect.forEach(places, (place) => count("fallback.attempts", { "fallback.place": place }))
      const test = Effect.gen(function*() {
        const agent = yield* Agent.make(places[0]!, undefined, { moved: "returns" })
        for (let i = 0; i < turns; i++) {
          const fiber = yield* Effect.forkChild(Effect.result(take(agent, mode)))
          yield* TestClock.adjust("20 minutes")
          yield* Fiber.join(fiber)
        }
        expect(yield* attempts).toEqual(yield* requests)
        if (!tracer) return
        const spans = exporter.getFinishedSpans().filter((span) => span.name.startsWith("chat "))
        expect(spans).toHaveLength((yield* requests).reduce((a, b) => a + b, 0))
        for (const span of spans) {
          const value = span.attributes["fallback.outcome"]
          expect(typeof value).toBe("string")
          expect(value === "answered").toBe(span.attributes["error.type"] === undefined)
          expect(span.status.code).toBe(value === "answered" ? 1 : 2)
        }
      }).pipe(Effect.scoped)
      return (tracer ? traced(exporter, test) : test).pipe(
        Effect.provide(world({
          script: {
            places: Object.fromEntries(places.map((place, i) => [
              place,
              script[i]!.map((o) => (o === "answer" ? Scripted.answer("ok") : Scripted.fail(o)))
            ])),
            whole
          },
          chain: [places[0]!, places[2]!],
          accounts: { claude: ["a", "b"] },
          breaker: { failures: 1000, park: Duration.seconds(1) }
        }))
      )
    },
    { arbitrary: { runs: 60 } }
  )
})
