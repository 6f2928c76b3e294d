/**
 * The span tree of a recovering turn, as any OpenTelemetry user sees it: the turn, each attempt
 * and wait as spans, each move as an event, with their attributes. The spans go through the
 * OpenTelemetry SDK (`@effect/opentelemetry`'s NodeSdk) to its in-memory exporter; swap in an OTLP
 * exporter to see them in Jaeger. The clock is simulated, so the 30 s wait takes no time.
 *
 *   npx tsx --conditions=@fallback/source examples/spans.ts
 */
import * as NodeSdk from "@effect/opentelemetry/NodeSdk"
import { Account, Accounts, Agent, ConfigFile, Health, Steps, Telemetry } from "@fallback/core"
import { Scripted } from "@fallback/testkit"
import { SpanKind } from "@opentelemetry/api"
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { Console, Effect, Fiber, Layer } from "effect"
import { TestClock } from "effect/testing"

const [work, home, codex] = ["claude@work/claude-opus-5", "claude@home/claude-opus-5", "codex/gpt-5.6-sol"]

// 429 at work (wait 30 s, go again, 429 again) → the home account refuses its login → codex answers
const outage = Scripted.Scripted.layer({
  places: {
    [work]: [Scripted.fail("RateLimited")],
    [home]: [Scripted.fail("AuthRefused")],
    [codex]: [Scripted.answer("Here is the refactor you asked for.")]
  }
})

const config = Layer.mergeAll(Steps.Steps.layer, Accounts.Accounts.layer).pipe(
  Layer.provide(ConfigFile.Store.layerMemory())
)

const exporter = new InMemorySpanExporter()
const tracing = NodeSdk.layer(() => ({
  resource: { serviceName: "spans-example" },
  spanProcessor: new SimpleSpanProcessor(exporter)
}))

const seconds = (time: readonly [number, number]) => `${time[0] + time[1] / 1e9}s`

const shown = (attributes: ReadableSpan["attributes"]) =>
  Object.entries(attributes)
    .filter(([key]) =>
      (key.startsWith("fallback.") && key !== "fallback.notice") || key === "error.type" ||
      key.startsWith("gen_ai.usage")
    )
    .map(([key, value]) => `${key}=${value}`)
    .join(" ")

/** The tree under `span`, its children by start time, each line: name, kind, when, attributes. */
const print = (spans: ReadonlyArray<ReadableSpan>, span: ReadableSpan, indent: string): Array<string> => {
  const lines = [
    `${indent}${span.name} [${SpanKind[span.kind].toLowerCase()}] ${seconds(span.startTime)} → ${
      seconds(span.endTime)
    }  ${shown(span.attributes)}`,
    ...span.events.map((event) =>
      `${indent}  · ${event.name} at ${seconds(event.time)}  ${shown(event.attributes ?? {})}`
    )
  ]
  const children = spans
    .filter((child) => child.parentSpanContext?.spanId === span.spanContext().spanId)
    .sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1])
  return [...lines, ...children.flatMap((child) => print(spans, child, `${indent}  `))]
}

const program = Effect.gen(function*() {
  const steps = yield* Steps.Steps
  yield* steps.points(work, codex)
  const accounts = yield* Accounts.Accounts
  yield* accounts.add("claude", new Account.Account({ name: "work" }))
  yield* accounts.add("claude", new Account.Account({ name: "home" }))

  const agent = yield* Agent.make(work)
  const turn = yield* Effect.forkChild(Agent.ask(agent, "refactor the parser"))
  yield* TestClock.adjust("1 minute")
  yield* Console.log(`answer: ${yield* Fiber.join(turn)}\n`)

  const spans = exporter.getFinishedSpans()
  const root = spans.find((span) => span.name === Telemetry.spanName.turn)!
  yield* Console.log(print(spans, root, "").join("\n"))
})

program.pipe(
  Effect.scoped,
  Effect.provide(tracing),
  Effect.provide(Layer.mergeAll(outage, config, Health.Health.layerMemory())),
  Effect.provide(TestClock.layer()),
  Effect.runPromise
)
