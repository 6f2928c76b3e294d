// B4's floor: what a start costs on the stack the command is built on, before any of fallback's own
// code. Four minimal programs are bundled as the bin is (esbuild, CommonJS, minified, run through
// vm.Script from a code cache of their own) and started round by round beside `node -e 0` and the
// bin's `list` and `status` (empty config in a temporary HOME). Each child reports its own CPU
// time (user + system) at exit, which a busy machine disturbs less than the wall clock.
//
//   node bench/cold-floor.mjs [rounds]
import { spawnSync } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { loadavg, tmpdir } from "node:os"
import { join } from "node:path"

import { build } from "esbuild"

const here = import.meta.dirname
const rounds = Number(process.argv[2] ?? 9)
const scratch = mkdtempSync(join(tmpdir(), "fallback-cold-floor-"))

const programs = {
  "Effect.runPromise(Effect.log)": `import * as Effect from "effect/Effect"
Effect.runPromise(Effect.log("x"))`,
  "+ a Schema.TaggedError and a decode": `import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
class E extends Schema.TaggedError<E>()("E", { a: Schema.String }) {}
const S = Schema.Struct({ a: Schema.optional(Schema.Number), b: Schema.Record(Schema.String, Schema.Unknown) })
Effect.runPromise(Effect.flatMap(Schema.decodeUnknownEffect(S)({ a: 1, b: {} }), () => Effect.log(new E({ a: "x" })._tag)))`,
  "NodeRuntime.runMain + NodeFileSystem": `import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as FileSystem from "effect/FileSystem"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
Effect.gen(function*() { yield* Console.log(yield* (yield* FileSystem.FileSystem).exists("/")) }).pipe(
  Effect.provide(NodeFileSystem.layer), NodeRuntime.runMain)`,
  "effect/cli: one subcommand, one option": `import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
const list = Command.make("list", { json: Flag.Boolean("json") }, () => Console.log("listed"))
Command.runWith(Command.make("fallback").pipe(Command.withSubcommands([list])), { version: "0" })(["list"]).pipe(
  Effect.provide(NodeServices.layer), NodeRuntime.runMain)`
}

// runs a bundle from a code cache beside it, written by its first run (as bin/load.js does)
const runner = join(scratch, "run.cjs")
writeFileSync(
  runner,
  `const fs = require("fs"), Module = require("module"), { Script } = require("vm"), path = require("path")
const file = process.argv[2], cache = file + ".cache", source = fs.readFileSync(file, "utf8")
let data; try { data = fs.readFileSync(cache) } catch {}
const script = new Script(Module.wrap(source), { filename: file, cachedData: data })
if (data === undefined || script.cachedDataRejected) process.once("exit", () => fs.writeFileSync(cache, script.createCachedData()))
const m = { exports: {} }
script.runInThisContext().call(m.exports, m.exports, Module.createRequire(file), m, file, path.dirname(file))
`
)
// each child's own CPU time, told on stderr as it exits
const cpu = join(scratch, "cpu.cjs")
writeFileSync(
  cpu,
  `process.on("exit", () => { const u = process.cpuUsage(); process.stderr.write("\\ncpu-us " + (u.user + u.system) + "\\n") })`
)

try {
  const rows = [["node -e 0", ["-e", "0"]]]
  for (const [name, source] of Object.entries(programs)) {
    const out = join(scratch, `${rows.length}.cjs`)
    await build({
      stdin: { contents: source, loader: "ts", resolveDir: here },
      bundle: true,
      platform: "node",
      format: "cjs",
      target: "node20",
      minify: true,
      outfile: out,
      logLevel: "warning"
    })
    rows.push([name, [runner, out]])
  }
  const bin = join(here, "../packages/cli/bin/fallback.js")
  rows.push(["fallback list", [bin, "list"]], ["fallback status", [bin, "status"]])

  const home = join(scratch, "home")
  const env = { PATH: process.env.PATH, HOME: home, FALLBACK_CONFIG: join(home, "config.json"), NO_COLOR: "1" }
  const start = (args) => {
    const done = spawnSync(process.execPath, ["-r", cpu, ...args], { env, encoding: "utf8", timeout: 60_000 })
    const said = /cpu-us (\d+)/.exec(done.stderr ?? "")
    if (said === null) throw new Error(`${args.join(" ")}: ${done.stderr}`)
    return Number(said[1]) / 1000
  }
  for (const [, args] of rows) start(args)
  const times = rows.map(() => [])
  for (let round = 0; round < rounds; round++) rows.forEach(([, args], i) => times[i].push(start(args)))
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
  const base = median(times[0])
  console.log(
    `CPU ms (user + system), median of ${rounds} rounds; load ${loadavg().map((l) => l.toFixed(1)).join(" ")}`
  )
  rows.forEach(([name], i) =>
    console.log(
      `${name.padEnd(42)} ${median(times[i]).toFixed(1).padStart(7)} ms  ${(median(times[i]) / base).toFixed(2)}×`
    )
  )
} finally {
  rmSync(scratch, { recursive: true, force: true })
}
