// Bundles the command line into one file with plain node: run by `npm ci` / `npm install`
// (the root's prepare script), so `npx fallback` works with no step of the user's own. Then runs
// `fallback --help` once to write the V8 code cache the bin starts from (bin/load.js).
import { execFileSync } from "node:child_process"
import { randomUUID } from "node:crypto"
import { build } from "esbuild"

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
  logLevel: "warning"
})

// bin/load.js runs the script without a loader for import(), so the bundle must not need one
const dynamic = Object.values(built.metafile.outputs).flatMap((output) => output.imports)
  .filter((imported) => imported.kind === "dynamic-import")
if (dynamic.length > 0) throw new Error(`the bundle imports ${dynamic.map((i) => i.path).join(", ")} at run time`)

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
