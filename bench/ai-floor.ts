/**
 * B6's in-process rows interleaved round by round in one process, each read as its median ratio
 * to the bare call of the same round (and to ExecutionPlan): what a FallbackAi chain adds over the
 * bare `LanguageModel` call, on the happy path and with one failover.
 * `node bench/build.mjs ai-floor && node bench/ai-floor.bundle.mjs`.
 */
import { LanguageModel } from "@effect/ai"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as ExecutionPlan from "effect/ExecutionPlan"
import * as Layer from "effect/Layer"

import { ask, chained, scripted, scriptedPlace } from "./effectAi.js"

const n = Number(process.env.BENCH_TURNS ?? 20_000)
const rounds = Number(process.env.BENCH_ROUNDS ?? 15)

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

const model = (layer: Layer.Layer<LanguageModel.LanguageModel>) =>
  Effect.map(Layer.build(layer), (context) => Context.get(context, LanguageModel.LanguageModel))

const section = (failover: boolean) =>
  Effect.scoped(Effect.gen(function*() {
    const first = scripted("first", failover)
    const second = scripted("second", false)
    const one = yield* model(first)
    const two = yield* model(second)
    const places = ["first/m", "second/m"] as const
    const backends = [scriptedPlace("first", failover), scriptedPlace("second", false)]
    const chain = yield* model(chained(backends, places, true))
    const chainNoLimit = yield* model(chained(backends, places, false))
    const on = (lm: LanguageModel.Service) => Effect.provideService(ask, LanguageModel.LanguageModel, lm)
    const bare = failover ? Effect.catchAll(on(one), () => on(two)) : on(one)
    const rows: ReadonlyArray<readonly [string, Effect.Effect<unknown, unknown>]> = [
      [failover ? "bare, catchAll to the second" : "bare LanguageModel call", bare],
      ["ExecutionPlan (Layer steps)", Effect.withExecutionPlan(ask, ExecutionPlan.make({ provide: first }, { provide: second }))],
      ["fallback chain", on(chain)],
      ["fallback chain, no first-byte limit", on(chainNoLimit)]
    ]
    const took = rows.map(() => [] as Array<number>)
    const cpu = rows.map(() => [] as Array<number>)
    const toBare = rows.map(() => [] as Array<number>)
    const toPlan = rows.map(() => [] as Array<number>)
    const cpuOver = rows.map(() => [] as Array<number>)
    for (const [, effect] of rows) yield* time(effect, n / 10)
    for (let round = 0; round < rounds; round++) {
      const t = [] as Array<readonly [number, number]>
      for (const [, effect] of rows) t.push(yield* time(effect, n / rounds))
      t.forEach(([wall, used], i) => {
        took[i]!.push(wall)
        cpu[i]!.push(used)
        toBare[i]!.push(wall / t[0]![0])
        toPlan[i]!.push(wall / t[1]![0])
        cpuOver[i]!.push(used - t[0]![1])
      })
    }
    console.log(failover ? "one failover" : "happy path")
    for (const [i, [name]] of rows.entries()) {
      console.log(
        `  ${name.padEnd(40)} ${median(took[i]!).toFixed(1).padStart(8)} µs  ${median(toBare[i]!).toFixed(2)}× bare  ${
          median(toPlan[i]!).toFixed(2)
        }× plan  (+${(median(took[i]!) - median(took[0]!)).toFixed(1)} µs) | CPU ${
          median(cpu[i]!).toFixed(1)
        } µs, +${median(cpuOver[i]!).toFixed(1)} over bare`
      )
    }
  }))

const which = process.argv[2]
if (which !== "failover") await Effect.runPromise(section(false))
if (which !== "happy") await Effect.runPromise(section(true))
