/**
 * B6's in-process rows interleaved round by round in one process, each read as its median ratio
 * to the bare call of the same round (and to ExecutionPlan): what a FallbackAi chain adds over the
 * bare `LanguageModel` call, on the happy path and with one failover, in-process (and with
 * `http`, over HTTP against the mock).
 * `node bench/build.mjs ai-floor && node bench/ai-floor.bundle.mjs [happy|failover|http]`.
 */
import * as LanguageModel from "effect/ai/LanguageModel"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as ExecutionPlan from "effect/ExecutionPlan"
import * as Layer from "effect/Layer"

import { NodeHttpClient } from "@effect/platform-node"
import type { Backend } from "@fallback/core"
import { MockProvider } from "@fallback/testkit"

import { ask, chained, httpKeys, httpModels, scripted, scriptedPlace } from "./effectAi.js"

const n = Number(process.env.BENCH_TURNS ?? 20_000)
const rounds = Number(process.env.BENCH_ROUNDS ?? 15)
const httpCalls = Number(process.env.BENCH_HTTP_TURNS ?? 300)

const median = (samples: Array<number>) => [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)]!

/**
 * µs a run of `effect`, over `runs` runs in a row: wall time, and the CPU time the process was
 * given meanwhile (on a machine others load, the wall time also counts the waits for a core).
 */
const time = (effect: Effect.Effect<unknown, unknown>, runs: number) =>
  Effect.gen(function*() {
    const cpu = process.cpuUsage()
    const start = performance.now()
    for (let i = 0; i < runs; i++) yield* effect
    const wall = ((performance.now() - start) * 1000) / runs
    const used = process.cpuUsage(cpu)
    return [wall, (used.user + used.system) / runs] as const
  })

const model = <R>(layer: Layer.Layer<LanguageModel.LanguageModel, never, R>) =>
  Effect.map(Layer.build(layer), (context) => Context.get(context, LanguageModel.LanguageModel))

/** Each row's wall and CPU time a call, round by round, read against the first row (bare) and the second (ExecutionPlan). */
const measure = (
  title: string,
  unit: "µs" | "ms",
  calls: number,
  rows: ReadonlyArray<readonly [string, Effect.Effect<unknown, unknown>]>
) =>
  Effect.gen(function*() {
    const scale = unit === "ms" ? 1 / 1000 : 1
    const took = rows.map(() => [] as Array<number>)
    const cpu = rows.map(() => [] as Array<number>)
    const toBare = rows.map(() => [] as Array<number>)
    const toPlan = rows.map(() => [] as Array<number>)
    const cpuOver = rows.map(() => [] as Array<number>)
    for (const [, effect] of rows) yield* time(effect, Math.ceil(calls / 10))
    for (let round = 0; round < rounds; round++) {
      const t = [] as Array<readonly [number, number]>
      for (const [, effect] of rows) t.push(yield* time(effect, Math.ceil(calls / rounds)))
      t.forEach(([wall, used], i) => {
        took[i]!.push(wall * scale)
        cpu[i]!.push(used * scale)
        toBare[i]!.push(wall / t[0]![0])
        toPlan[i]!.push(wall / t[1]![0])
        cpuOver[i]!.push((used - t[0]![1]) * scale)
      })
    }
    console.log(title)
    for (const [i, [name]] of rows.entries()) {
      console.log(
        `  ${name.padEnd(40)} ${median(took[i]!).toFixed(unit === "ms" ? 2 : 1).padStart(8)} ${unit}  ${
          median(toBare[i]!).toFixed(2)
        }× bare  ${median(toPlan[i]!).toFixed(2)}× plan  | CPU ${
          median(cpu[i]!).toFixed(unit === "ms" ? 2 : 1)
        } ${unit}, ${median(cpuOver[i]!) >= 0 ? "+" : ""}${
          median(cpuOver[i]!).toFixed(unit === "ms" ? 2 : 1)
        } over bare`
      )
    }
  })

/** The rows of one section: the two models bare (a catchAll for a failover), through ExecutionPlan, through the chain. */
const rowsOf = <R>(
  first: Layer.Layer<LanguageModel.LanguageModel, never, R>,
  second: Layer.Layer<LanguageModel.LanguageModel, never, R>,
  backends: ReadonlyArray<Effect.Effect<Backend.Backend, never, R>>,
  places: readonly [string, string],
  failover: boolean
) =>
  Effect.gen(function*() {
    const context = yield* Effect.context<R>()
    const one = yield* model(first)
    const two = yield* model(second)
    const chain = yield* model(chained(backends, places, true))
    const chainNoLimit = yield* model(chained(backends, places, false))
    const on = (lm: LanguageModel.LanguageModel) => Effect.provideService(ask, LanguageModel.LanguageModel, lm)
    const plan = ExecutionPlan.make({ provide: first }, { provide: second })
    return [
      [
        failover ? "bare, catchAll to the second" : "bare LanguageModel call",
        failover
          ? Effect.catch(on(one), () => on(two))
          : on(one)
      ],
      ["ExecutionPlan (Layer steps)", Effect.provide(Effect.withExecutionPlan(ask, plan), context)],
      ["fallback chain", on(chain)],
      ["fallback chain, no first-byte limit", on(chainNoLimit)]
    ] as ReadonlyArray<readonly [string, Effect.Effect<unknown, unknown>]>
  })

const inProcess = (failover: boolean) =>
  Effect.scoped(Effect.flatMap(
    rowsOf(
      scripted("first", failover),
      scripted("second", false),
      [scriptedPlace("first", failover), scriptedPlace("second", false)],
      ["first/m", "second/m"],
      failover
    ),
    (rows) => measure(failover ? "in-process, one failover" : "in-process, happy path", "µs", n, rows)
  ))

const overHttp = (url: string, failover: boolean) => {
  const { backends, first, places, second } = httpModels(url, failover)
  return Effect.scoped(Effect.flatMap(
    rowsOf(first, second, backends, places, failover),
    (rows) => measure(failover ? "HTTP, one failover" : "HTTP, happy path", "ms", httpCalls, rows)
  )).pipe(Effect.provide(NodeHttpClient.layerUndici), Effect.provideService(ConfigProvider.ConfigProvider, httpKeys))
}

const which = process.argv[2]
if (which === undefined || which === "happy") await Effect.runPromise(inProcess(false))
if (which === undefined || which === "failover") await Effect.runPromise(inProcess(true))
if (which === "http") {
  const mock = await MockProvider.start({ lifetime: 30 * 60_000, text: "ok" })
  try {
    await Effect.runPromise(overHttp(mock.url, false))
    await Effect.runPromise(overHttp(mock.url, true))
  } finally {
    await mock.stop()
  }
}
