/**
 * The benchmarks, this project beside its peers in one run: B1 happy path, B2 failover, B3 scale,
 * B4 cold start, B5 HTTP, B6 @effect/ai, B7 health stores, B8 the gateway (`fallback serve`). Prints the figures, then each target beside its figure
 * (met or not, and what the last run read), and adds the run to the history in `bench/results.json`.
 *
 *   npm run bench                 every bench
 *   npm run bench -- B1 B4        some of them
 *
 * BENCH_REPETITIONS (5), BENCH_TURNS (5,000 a B1/B2 loop), BENCH_HTTP_TURNS (200 at concurrency 1)
 * and BENCH_HTTP_PARALLEL_TURNS (1,000 at concurrency 50) size them.
 *
 * A bench is a function that returns its figures, registered below by name; its targets, if any,
 * go in `targets.ts`.
 */
import { execFileSync } from "node:child_process"
import { cpus, loadavg } from "node:os"
import { join } from "node:path"
import { cold } from "./cold.js"
import { effectAi } from "./effectAi.js"
import { type Figure, history, repetitions, save, table, verdicts } from "./figures.js"
import { health } from "./health.js"
import { http } from "./http.js"
import { scale } from "./scale.js"
import { serveBench } from "./serve.js"
import { read } from "./targets.js"
import { failover, happy } from "./turns.js"

const benches: ReadonlyArray<readonly [string, () => Promise<Array<Figure>> | Array<Figure>]> = [
  ["B1", happy],
  ["B2", failover],
  ["B3", scale],
  ["B4", cold],
  ["B5", http],
  ["B6", effectAi],
  ["B7", health],
  ["B8", serveBench]
]

/** The commit measured, with `+dirty` when the working tree differs from it. */
const commit = () => {
  try {
    const head = execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim()
    const dirty = execFileSync("git", ["status", "--porcelain", "--untracked-files=no"], { encoding: "utf8" }).trim()
    return dirty === "" ? head : `${head}+dirty`
  } catch {
    return "unknown"
  }
}

const asked = process.argv.slice(2).map((name) => name.toUpperCase())
const figures: Array<Figure> = []
const ran: Array<string> = []
const load = [loadavg()[0]!]
for (const [name, bench] of benches) {
  if (asked.length > 0 && !asked.includes(name)) continue
  const start = performance.now()
  figures.push(...await bench())
  ran.push(name)
  load.push(loadavg()[0]!)
  console.error(`${name} took ${((performance.now() - start) / 1000).toFixed(0)} s`)
}
const path = join(import.meta.dirname, "results.json")
const machine = `${cpus().length} × ${cpus()[0]?.model ?? "CPU"}`
const targets = read(figures)
console.log(table(figures))
console.log(
  `\n${repetitions} repetitions each; ${machine}, load average ${load.map((l) => l.toFixed(1)).join(" → ")}\n`
)
console.log(verdicts(targets, history(path)))
save(path, {
  at: new Date().toISOString(),
  commit: commit(),
  node: process.version,
  machine,
  load,
  benches: ran,
  repetitions,
  targets,
  figures
})
