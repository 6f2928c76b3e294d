/**
 * How long 8 processes take to make 50 edits each to one config file (every edit a locked
 * read-modify-write with an fsync'd atomic replace), and one process alone for comparison.
 *
 *   npm run bench:config
 */
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { bundleWriter } from "../packages/core/test/fixtures/bundle.js"

const folder = mkdtempSync(join(tmpdir(), "fallback-bench-"))
const writer = join(folder, "writer.mjs")

const run = (...args: Array<string>) =>
  new Promise<void>((resolve, reject) =>
    spawn(process.execPath, [writer, ...args], { stdio: "inherit" }).on(
      "close",
      (code) => code === 0 ? resolve() : reject(new Error(`writer exited ${code}`))
    )
  )

const timed = async (what: () => Promise<unknown>) => {
  const start = performance.now()
  await what()
  return performance.now() - start
}

const figures = (samples: Array<number>) => {
  const sorted = [...samples].sort((a, b) => a - b)
  const median = sorted[Math.floor(sorted.length / 2)]!
  return `median ${median.toFixed(0)} ms (min ${sorted[0]!.toFixed(0)}, max ${sorted.at(-1)!.toFixed(0)})`
}

await bundleWriter(writer)

const repetitions = 5
const many: Array<number> = []
const alone: Array<number> = []
for (let r = 0; r < repetitions; r++) {
  const file = join(folder, `run-${r}`, "config.json")
  many.push(await timed(() => Promise.all(Array.from({ length: 8 }, (_, id) => run(file, String(id), "50")))))
  alone.push(await timed(() => run(join(folder, `alone-${r}`, "config.json"), "0", "50")))
}
rmSync(folder, { recursive: true, force: true })

console.log(`config file, ${repetitions} repetitions`)
console.log(`  8 processes × 50 edits (400 locked edits): ${figures(many)}`)
console.log(`  1 process × 50 edits:                      ${figures(alone)}`)
console.log(`  per edit under contention: ${(many.sort((a, b) => a - b)[2]! / 400).toFixed(1)} ms`)
