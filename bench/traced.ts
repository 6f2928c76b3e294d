/**
 * B1 and B2 with and without a tracer installed: a held agent's `Agent.ask` and `agent.turn`,
 * (1) with Effect's own tracer, what a program has when it installs none; (2) under a tracer of
 * the program's own that keeps nothing (Effect's native spans, so what is measured is fallback's
 * spans alone); (3) under the OpenTelemetry SDK (`@effect/opentelemetry`'s NodeSdk, spans handed to
 * a processor that drops them). The SDK is measured last: once installed, it slows the whole
 * process down for good (its context manager's async hooks), the rows before it included.
 *
 *   node bench/build.mjs traced && node --expose-gc bench/traced.bundle.mjs
 */
import * as NodeSdk from "@effect/opentelemetry/NodeSdk"
import { Agent } from "@fallback/core"
import type { SpanProcessor } from "@opentelemetry/sdk-trace-base"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as Tracer from "effect/Tracer"
import { type Figure, figure, table } from "./figures.js"
import { inEffect } from "./loops.js"
import { chain, world } from "./world.js"

const turns = Number(process.env.BENCH_TURNS ?? 5_000)
const streamedTurns = Math.max(200, Math.floor(turns / 20))

const native = Tracer.Tracer.defaultValue()
const own = Tracer.make({
  span: (options) => native.span(options),
  ...(native.context === undefined ? {} : { context: native.context })
})

const dropped: SpanProcessor = {
  onStart: () => {},
  onEnd: () => {},
  forceFlush: () => Promise.resolve(),
  shutdown: () => Promise.resolve()
}
const sdk = NodeSdk.layer(() => ({ resource: { serviceName: "bench" }, spanProcessor: dropped }))

type Under = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
const variants: ReadonlyArray<readonly [string, Under]> = [
  ["no tracer installed", (effect) => effect],
  ["a tracer of the program's own (Effect's spans)", (effect) => Effect.withTracer(effect, own)],
  ["OpenTelemetry SDK installed", (effect) => Effect.provide(effect, sdk)]
]

const rows = (bench: string, places: ReadonlyArray<string>, [name, under]: readonly [string, Under]) =>
  Effect.gen(function*() {
    const agent = yield* Agent.make(places[0]!, undefined, { moved: "returns" })
    return [
      figure(bench, `Agent.ask (held agent), ${name}`, "µs", yield* under(inEffect(turns, Agent.ask(agent, "hi")))),
      figure(
        bench,
        `agent.turn streamed, ${name}`,
        "µs",
        yield* under(inEffect(streamedTurns, Stream.runDrain(agent.turn("hi"))))
      )
    ]
  }).pipe(Effect.scoped, Effect.provide(world(chain(places))))

const figures: Array<Figure> = []
for (const variant of variants) {
  figures.push(...await Effect.runPromise(rows("B1", ["claude/a", "codex/b", "gemini/c"], variant)))
  figures.push(...await Effect.runPromise(rows("B2", ["claude/down", "codex/b", "gemini/c"], variant)))
}
console.log(table(figures.sort((a, b) => a.bench.localeCompare(b.bench))))
