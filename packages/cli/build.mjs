// Bundles the command line into one file with plain node: run by `npm ci` / `npm install`
// (the root's prepare script), so `npx fallback` works with no step of the user's own. Then runs
// `fallback --help` once to write the V8 code cache the bin starts from (bin/load.js).
import { execFileSync } from "node:child_process"
import { randomUUID } from "node:crypto"
import { readFileSync } from "node:fs"
import { dirname } from "node:path"

import { build } from "esbuild"

// @effect/platform-node's HTTP client reaches undici through one module, which re-exports all of
// it, so every start would load undici (nearly half the bundle) though only run, demo and edit make
// requests. In the bundle that module is one that loads undici when the client first asks for a
// dispatcher; it offers what the client takes from undici, which the checks below hold to.
const undici = /@effect[\\/]platform-node[\\/]dist[\\/]esm[\\/]Undici\.js$/
const undiciTaken = ["Agent", "getGlobalDispatcher"]
const lazyUndici = {
  name: "lazy-undici",
  setup: (build) =>
    build.onLoad({ filter: undici }, (args) => ({
      loader: "js",
      resolveDir: dirname(args.path),
      contents: `let undici
const load = () => (undici ??= require("undici"))
export const Agent = function Agent(options) { return new (load().Agent)(options) }
export const getGlobalDispatcher = () => load().getGlobalDispatcher()
`
    }))
}

const built = await build({
  entryPoints: [new URL("src/bin.ts", import.meta.url).pathname],
  bundle: true,
  platform: "node",
  // a script, not a module: on Node 20 only a script can be compiled from a code cache (vm.Script)
  format: "cjs",
  target: "node20",
  conditions: ["@fallback/source"],
  outfile: new URL("dist/fallback.cjs", import.meta.url).pathname,
  minify: true,
  legalComments: "none",
  // the sources are modules, so strict, as they were in an ESM bundle; the id ties the code cache
  // to this build (bin/load.js)
  banner: { js: `"use strict";/* fallback build ${randomUUID()} */` },
  metafile: true,
  plugins: [lazyUndici],
  logLevel: "warning"
})

// bin/load.js runs the script without a loader for import(), so the bundle must not need one
const dynamic = Object.values(built.metafile.outputs).flatMap((output) => output.imports)
  .filter((imported) => imported.kind === "dynamic-import")
if (dynamic.length > 0) throw new Error(`the bundle imports ${dynamic.map((i) => i.path).join(", ")} at run time`)

for (const [path, input] of Object.entries(built.metafile.inputs)) {
  if (!input.imports.some((imported) => undici.test(imported.path))) continue
  const taken = new Set(
    Array.from(readFileSync(path, "utf8").matchAll(/(?<![\w./])Undici\.(\w+)/g), ([, name]) => name)
  )
  const missing = [...taken].filter((name) => !undiciTaken.includes(name))
  if (!path.endsWith("httpClientUndici.js") || missing.length > 0) {
    throw new Error(
      `${path} takes ${[...taken].join(", ")} from undici; the lazy stand-in offers ${undiciTaken.join(", ")}`
    )
  }
}

execFileSync(
  process.execPath,
  [
    "--input-type=module",
    "-e",
    "(await import(process.argv[1])).run({ record: true })",
    new URL("bin/load.js", import.meta.url).href,
    "--help"
  ],
  { stdio: "ignore", env: { ...process.env, NO_COLOR: "1" } }
)
