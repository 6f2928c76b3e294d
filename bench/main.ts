/**
 * The benchmarks, this project beside its peers in one run: B1 happy path, B2 failover, B3 scale,
 * B4 cold start, B5 HTTP, B6 health stores. Prints a table and writes `bench/results.json`.
 *
 *   npm run bench                 every bench
 *   npm run bench -- B1 B4        some of them
 *
 * BENCH_REPETITIONS (5), BENCH_TURNS (5,000 a B1/B2 loop), BENCH_HTTP_TURNS (200 at concurrency 1)
 * and BENCH_HTTP_PARALLEL_TURNS (1,000 at concurrency 50) size them.
 */
import { cpus, loadavg } from "node:os"
import { join } from "node:path"
import { cold } from "./cold.js"
import { type Figure, repetitions, save, table } from "./figures.js"
import { health } from "./health.js"
import { http } from "./http.js"
import { scale } from "./scale.js"
import { failover, happy } from "./turns.js"

const benches: ReadonlyArray<readonly [string, () => Promise<Array<Figure>> | Array<Figure>]> = [
  ["B1", happy],
  ["B2", failover],
  ["B3", scale],
  ["B4", cold],
  ["B5", http],
  ["B6", health]
]

const asked = process.argv.slice(2).map((name) => name.toUpperCase())
const figures: Array<Figure> = []
const load = [loadavg()[0]!]
for (const [name, bench] of benches) {
  if (asked.length > 0 && !asked.includes(name)) continue
  const start = performance.now()
  figures.push(...await bench())
  load.push(loadavg()[0]!)
  console.error(`${name} took ${((performance.now() - start) / 1000).toFixed(0)} s`)
}
console.log(table(figures))
const machine = `${cpus().length} × ${cpus()[0]?.model ?? "CPU"}, load average ${load.map((l) => l.toFixed(1)).join(" → ")}`
console.log(`\n${repetitions} repetitions each; ${machine}`)
save(join(import.meta.dirname, "results.json"), figures, { machine })
