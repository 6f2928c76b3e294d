/**
 * What an OpenTelemetry user sees of a recovering turn: the spans the real SDK's in-memory
 * exporter receives for a scripted outage (429 → wait → account move → place move → answer), on
 * the TestClock.
 */
import { describe, expect, it } from "@effect/vitest"
import { Scripted } from "@fallback/testkit"
import { SpanKind } from "@opentelemetry/api"
import { InMemorySpanExporter, type ReadableSpan } from "@opentelemetry/sdk-trace-base"
import { Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import type { Place } from "../../src/index.js"
import { Agent, Failure, Telemetry } from "../../src/index.js"
import { outage, traced, turnAt } from "./telemetry.js"
import { world } from "./world.js"

const kinds: Record<number, string> = {
  [SpanKind.INTERNAL]: "internal",
  [SpanKind.CLIENT]: "client",
  [SpanKind.SERVER]: "server"
}

const millis = (time: readonly [number, number]) => time[0] * 1000 + time[1] / 1e6

/** The tree under the turn's span, one line a span: name, kind, start and end on the TestClock. */
const tree = (spans: ReadonlyArray<ReadableSpan>) => {
  const root = spans.find((span) => span.name === Telemetry.spanName.turn)!
  const lines: Array<string> = []
  const walk = (span: ReadableSpan, depth: number) => {
    lines.push(
      `${"  ".repeat(depth)}${span.name} (${kinds[span.kind]}) ${millis(span.startTime)}→${millis(span.endTime)}`
    )
    spans
      .filter((child) => child.parentSpanContext?.spanId === span.spanContext().spanId)
      .sort((a, b) => millis(a.startTime) - millis(b.startTime))
      .forEach((child) => walk(child, depth + 1))
  }
  walk(root, 0)
  return { root, lines }
}

describe("spans of a recovering turn", () => {
  for (const mode of ["whole", "streamed"] as const) {
    it.effect(`429 → wait → account move → place move → answer, taken ${mode}: the exact tree`, () => {
      const exporter = new InMemorySpanExporter()
      const { codex, home, layer, work } = outage(`tree-${mode}`)
      return Effect.gen(function*() {
        expect(yield* turnAt(work, mode)).toBe("done")
        const spans = exporter.getFinishedSpans()
        const { lines, root } = tree(spans)
        const [opus, gpt] = [`chat opus-tree-${mode}`, `chat gpt-tree-${mode}`]
        expect(lines).toEqual([
          "invoke_agent fallback (internal) 0→30000",
          `  ${opus} (client) 0→0`,
          "  fallback.wait (internal) 0→30000",
          `  ${opus} (client) 30000→30000`,
          `  ${opus} (client) 30000→30000`,
          `  ${gpt} (client) 30000→30000`
        ])
        expect(root.attributes).toEqual({
          "gen_ai.operation.name": "invoke_agent",
          "gen_ai.provider.name": "claude",
          "gen_ai.system": "claude",
          "gen_ai.request.model": `opus-tree-${mode}`,
          "fallback.place": work,
          "fallback.account": "work",
          "fallback.outcome": "answered",
          "fallback.attempts": 4,
          "fallback.answered.place": codex,
          "gen_ai.usage.input_tokens": 2,
          "gen_ai.usage.output_tokens": 1
        })
        expect(root.events.map((event) => [event.name, millis(event.time), event.attributes?.["fallback.move.by"]]))
          .toEqual([
            ["fallback.retry", 0, undefined],
            ["fallback.move", 30000, "account"],
            ["fallback.move", 30000, "place"]
          ])
        const attempts = spans.filter((span) => span.name.startsWith("chat ")).sort((a, b) =>
          (a.attributes["fallback.attempt"] as number) - (b.attributes["fallback.attempt"] as number)
        )
        expect(attempts.map((span) => ({
          attempt: span.attributes["fallback.attempt"],
          place: span.attributes["fallback.place"],
          account: span.attributes["fallback.account"],
          by: span.attributes["fallback.move.by"],
          outcome: span.attributes["fallback.outcome"],
          error: span.attributes["error.type"],
          status: span.status.code,
          operation: span.attributes["gen_ai.operation.name"]
        }))).toEqual([
          {
            attempt: 1,
            place: work,
            account: "work",
            by: "start",
            outcome: "RateLimited",
            error: "RateLimited",
            status: 2,
            operation: "chat"
          },
          {
            attempt: 2,
            place: work,
            account: "work",
            by: "start",
            outcome: "RateLimited",
            error: "RateLimited",
            status: 2,
            operation: "chat"
          },
          {
            attempt: 3,
            place: home,
            account: "home",
            by: "account",
            outcome: "AuthRefused",
            error: "AuthRefused",
            status: 2,
            operation: "chat"
          },
          {
            attempt: 4,
            place: codex,
            account: undefined,
            by: "place",
            outcome: "answered",
            error: undefined,
            status: 1,
            operation: "chat"
          }
        ])
        const wait = spans.find((span) => span.name === Telemetry.spanName.wait)!
        expect(wait.attributes).toEqual({
          "fallback.place": work,
          "error.type": "RateLimited",
          "fallback.wait_ms": 30000
        })
      }).pipe((effect) => traced(exporter, effect), Effect.provide(layer))
    })
  }

  it.effect("a turn that fails ends its span with the failure's kind, and no secret is in any attribute", () => {
    const exporter = new InMemorySpanExporter()
    const place = "claude/opus-fails"
    const secret = "sk-ant-api03-a1b2c3d4e5f6g7h8i9j0"
    const refused = (at: Place.Place) =>
      new Failure.Unknown({ place: at, said: Failure.said(`no such model for key ${secret}`) })
    return Effect.gen(function*() {
      const failed = yield* Effect.flip(turnAt(place, "whole"))
      expect(failed._tag).toBe("Unknown")
      const { lines, root } = tree(exporter.getFinishedSpans())
      expect(lines).toEqual(["invoke_agent fallback (internal) 0→0", "  chat opus-fails (client) 0→0"])
      expect(root.attributes["fallback.outcome"]).toBe("Unknown")
      expect(root.attributes["error.type"]).toBe("Unknown")
      expect(root.status.code).toBe(2)
      expect(root.events.map((event) => event.name)).toEqual(["fallback.stop", "exception"])
      const exported = JSON.stringify(
        exporter.getFinishedSpans().map((span) => [span.attributes, span.events, span.status])
      )
      expect(exported).toContain("sk-ant-***")
      expect(exported).not.toContain(secret.slice("sk-ant-".length))
    }).pipe(
      (effect) => traced(exporter, effect),
      Effect.provide(world({ script: { places: { [place]: [Scripted.fail(refused)] } } }))
    )
  })

  it.effect("with no tracer installed, a turn makes no span of its own", () =>
    Effect.gen(function*() {
      const { work } = outage("untraced")
      const native = yield* Effect.tracer
      const names: Array<string> = []
      // Effect's own tracer, watched for the length of the turn (there is no other way to see it)
      const span = native.span
      yield* Effect.acquireRelease(
        Effect.sync(() => {
          ;(native as { span: typeof span }).span = function(options) {
            names.push(options.name)
            return span.call(this, options)
          }
        }),
        () => Effect.sync(() => void ((native as { span: typeof span }).span = span))
      )
      const agent = yield* Agent.make(work)
      names.length = 0
      const fiber = yield* Effect.forkChild(Agent.ask(agent, "fix it"))
      yield* TestClock.adjust("1 minute")
      expect(yield* Fiber.join(fiber)).toBe("done")
      expect(names).toEqual([])
    }).pipe(Effect.scoped, Effect.provide(outage("untraced").layer)))
})
