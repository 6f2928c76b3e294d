/**
 * The chaos soak: trials drawn from consecutive seeds, several at once, until enough turns are
 * taken or the time is up; then what the whole run left behind: sockets, servers, processes and
 * heap.
 */
import * as Effect from "effect/Effect"
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"
import * as Lag from "./lag.js"
import { type Report, trial } from "./trial.js"

/**
 * How a soak runs: turns wanted, seconds after which no turn starts (none in `npm test`, which is
 * bound by counts), the first seed, trials at once, and whether a turn that ends later than its
 * bound by the wall clock breaks the soak (`npm run soak`) or is only reported (`npm test`, where a
 * busy machine's pauses are not the engine's lateness).
 */
export interface Plan {
  readonly turns: number
  readonly seconds: number
  readonly seed: number
  readonly parallel: number
  readonly turnsPerTrial: number
  readonly wallClock: boolean
}

/** What a soak found: turns and time, the mix of endings, the worst overrun, and what broke. */
export interface Summary {
  readonly turns: number
  readonly trials: number
  readonly seconds: number
  readonly mix: Record<string, number>
  readonly overrun: number
  readonly late: number
  readonly heapWarm: number
  readonly heapEnd: number
  readonly broken: Array<string>
  /** The seed of the first trial that broke an invariant. */
  readonly firstBroken: number | undefined
}

setFlagsFromString("--expose-gc")
const gc = runInNewContext("gc") as () => void

const heap = () => {
  gc()
  gc()
  return process.memoryUsage().heapUsed / 2 ** 20
}

/** Handles of the kinds a soak may leak: sockets, servers, timers of child processes. */
const handles = () => {
  const counts: Record<string, number> = {}
  for (const kind of process.getActiveResourcesInfo()) {
    if (/TCP|Pipe|Process/.test(kind)) counts[kind] = (counts[kind] ?? 0) + 1
  }
  return counts
}

/** Runs a soak. */
export const soak = (plan: Plan): Effect.Effect<Summary> =>
  Effect.gen(function*() {
    const before = handles()
    Lag.start()
    const started = Date.now()
    const reports: Array<Report> = []
    let next = plan.seed
    let heapWarm = 0
    const wave = () =>
      Effect.forEach(
        Array.from({ length: plan.parallel }, () => next++),
        (seed) => trial(seed, plan.turnsPerTrial, started + plan.seconds * 1000, plan.wallClock),
        { concurrency: "unbounded" }
      )
    const taken = () => reports.reduce((sum, report) => sum + report.endings.length, 0)
    // two waves warm up what a soak only ever allocates once (compiled code, pools, caches)
    reports.push(...yield* wave(), ...yield* wave())
    heapWarm = heap()
    while (taken() < plan.turns && Date.now() - started < plan.seconds * 1000) reports.push(...yield* wave())
    const seconds = (Date.now() - started) / 1000
    Lag.stop()
    yield* Effect.sleep("50 millis")
    const heapEnd = heap()
    const after = handles()
    const broken = reports.flatMap((report) =>
      report.broken.map((text) =>
        `seed ${report.seed} (${report.chain.join(" → ")}${report.whole ? ", whole" : ""}): ${text}`
      )
    )
    for (const kind of new Set([...Object.keys(before), ...Object.keys(after)])) {
      if ((after[kind] ?? 0) > (before[kind] ?? 0)) {
        broken.push(`${(after[kind] ?? 0) - (before[kind] ?? 0)} ${kind} handles left open after the soak`)
      }
    }
    if (heapEnd > heapWarm * 1.1) {
      broken.push(
        `heap ${heapEnd.toFixed(1)} MB after the soak, over 10 % above ${heapWarm.toFixed(1)} MB after warm-up`
      )
    }
    const mix: Record<string, number> = {}
    for (const ending of reports.flatMap((report) => report.endings)) mix[ending] = (mix[ending] ?? 0) + 1
    return {
      turns: taken(),
      trials: reports.length,
      seconds,
      mix,
      overrun: Math.max(...reports.map((report) => report.overrun)),
      late: reports.reduce((sum, report) => sum + report.late, 0),
      heapWarm,
      heapEnd,
      broken,
      firstBroken: reports.find((report) => report.broken.length > 0)?.seed
    }
  })

/** How to replay the trial of one seed alone. */
export const replay = (seed: number) => `SOAK_SEED=${seed} SOAK_TURNS=25 SOAK_PARALLEL=1 npm run soak`

/** The summary as lines a person reads, with how to replay the first broken seed. */
export const describe = (summary: Summary): string => {
  const mix = Object.entries(summary.mix).sort((a, b) => b[1] - a[1])
    .map(([ending, count]) => `  ${ending.padEnd(24)} ${count} (${((100 * count) / summary.turns).toFixed(1)} %)`)
  return [
    `${summary.turns} turns in ${summary.trials} trials, ${summary.seconds.toFixed(1)} s: ${
      (summary.turns / summary.seconds).toFixed(0)
    } turns/s`,
    `worst end past a turn's bound, less the event loop's lag meanwhile: ${summary.overrun.toFixed(0)} ms` +
    ` (${summary.late} turns past it by more than the margin)`,
    `heap after warm-up ${summary.heapWarm.toFixed(1)} MB, after the soak ${summary.heapEnd.toFixed(1)} MB`,
    "endings:",
    ...mix,
    summary.broken.length === 0 ? "no invariant broken" : `${summary.broken.length} broken:`,
    ...summary.broken.slice(0, 20).map((line) => `  ${line}`),
    ...(summary.broken.length === 0 ? [] : [`replay the first: ${replay(summary.firstBroken ?? 0)}`])
  ].join("\n")
}
