// Bundles the command line into one file with plain node: run by `npm ci` / `npm install`
// (the root's prepare script), so `npx fallback` works with no step of the user's own. Then runs
// `fallback status` once to write the V8 code cache the bin starts from (bin/load.js), and writes
// the help pages out (dist/pages.json), which the bin prints without starting the command line.
import { execFile, execFileSync } from "node:child_process"
import { randomUUID } from "node:crypto"
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"

import { build } from "esbuild"

// @effect/platform-node's file system and child process spawner load node:crypto and
// node:child_process when the bundle starts, for a temporary file's name and for running a
// program, which most commands never do. (Its HTTP client loads undici itself, by import(),
// which the bundle keeps lazy.) In the bundle each is a module that loads the builtin
// when first called; the check below holds each importer to the functions offered.
const lazyBuiltins = { "node:crypto": ["randomBytes"], "node:child_process": ["execFile", "spawn"] }
const platformShared = /@effect[\\/]platform-node-shared[\\/]dist[\\/]/
const lazyBuiltin = {
  name: "lazy-builtin",
  setup: (build) => {
    build.onResolve(
      { filter: /^node:(crypto|child_process)$/ },
      (args) => platformShared.test(args.importer) ? { path: args.path, namespace: "lazy-builtin" } : undefined
    )
    build.onLoad({ filter: /.*/, namespace: "lazy-builtin" }, (args) => ({
      loader: "js",
      contents: `let builtin
const load = () => (builtin ??= require(${JSON.stringify(args.path)}))
${lazyBuiltins[args.path].map((name) => `export const ${name} = (...args) => load().${name}(...args)`).join("\n")}
`
    }))
  }
}

// @redis/client reaches for @node-rs/xxhash, an optional package, by import() in a function the
// Redis health store never calls (digest); in the bundle that package is one that is not there
const absent = ["@node-rs/xxhash"]
const absentPackages = {
  name: "absent-packages",
  setup: (build) => {
    build.onResolve(
      { filter: new RegExp(`^(?:${absent.join("|")})$`) },
      (args) => ({ path: args.path, namespace: "absent" })
    )
    build.onLoad({ filter: /.*/, namespace: "absent" }, (args) => ({
      loader: "js",
      contents: `throw new Error(${JSON.stringify(`${args.path} is not in the bundle`)})`
    }))
  }
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
  // the version the package is published as, written once: changesets bump package.json
  define: {
    FALLBACK_VERSION: JSON.stringify(
      JSON.parse(readFileSync(new URL("package.json", import.meta.url), "utf8")).version
    )
  },
  plugins: [lazyBuiltin, absentPackages],
  logLevel: "warning"
})

// bin/load.js runs the script without a loader for import(), so the bundle must not need one
const dynamic = Object.values(built.metafile.outputs).flatMap((output) => output.imports)
  .filter((imported) => imported.kind === "dynamic-import")
if (dynamic.length > 0) throw new Error(`the bundle imports ${dynamic.map((i) => i.path).join(", ")} at run time`)

for (const [path, input] of Object.entries(built.metafile.inputs)) {
  for (const imported of input.imports.filter((i) => i.path.startsWith("lazy-builtin:"))) {
    const builtin = imported.path.slice("lazy-builtin:".length)
    const source = readFileSync(path, "utf8")
    const names = Array.from(source.matchAll(new RegExp(`import \\* as (\\w+) from "${builtin}"`, "g")), ([, n]) => n)
    const taken = names.flatMap((n) =>
      Array.from(source.matchAll(new RegExp(`(?<![\\w.])${n}\\.(\\w+)`, "g")), ([, t]) => t)
    )
    const missing = taken.filter((name) => !lazyBuiltins[builtin].includes(name))
    if (names.length === 0 || missing.length > 0) {
      throw new Error(
        `${path} takes ${taken.join(", ")} from ${builtin}; the lazy stand-in offers ${lazyBuiltins[builtin]}`
      )
    }
  }
}

// The cache holds the code that ran by the time the recording run exits: `status` on an empty
// config reads the config and the health file, as every command but the help pages does (those
// are printed from dist/pages.json), and loads no other command's code.
const scratch = mkdtempSync(join(tmpdir(), "fallback-build-"))
try {
  execFileSync(
    process.execPath,
    [
      "--input-type=module",
      "-e",
      "(await import(process.argv[1])).run({ record: true })",
      new URL("bin/load.js", import.meta.url).href,
      "status"
    ],
    {
      stdio: "ignore",
      env: { PATH: process.env.PATH, HOME: scratch, FALLBACK_CONFIG: join(scratch, "config.json"), NO_COLOR: "1" }
    }
  )
} finally {
  rmSync(scratch, { recursive: true, force: true })
}

// The help pages, as the bundle prints them on a terminal and elsewhere: bin/load.js prints them
// from dist/pages.json instead of starting the command line
const load = new URL("bin/load.js", import.meta.url).pathname
const print = async (args, colour) => {
  const env = { ...process.env, NO_COLOR: colour ? "" : "1" }
  const { stderr, stdout } = await promisify(execFile)(
    process.execPath,
    ["-e", `process.stdout.isTTY = ${colour}; require(process.argv[1]).run({ replay: false })`, load, ...args],
    { env, encoding: "utf8", maxBuffer: 16 * 1024 * 1024 }
  )
  return { status: 0, stdout, stderr }
}
const top = (await print(["--help"], false)).stdout
// the root help's command lines: "  NAME   what it does"
const commands = [...new Set(Array.from(top.matchAll(/^ {2}([a-z][\w-]*) {2,}/gm), ([, name]) => name))]
const shown = [[], ["--help"], ["-h"], ["--version"], ...commands.map((command) => [command, "--help"])]
const pages = Object.fromEntries(
  await Promise.all(shown.map(async (args) => [
    args.join(" "),
    { plain: await print(args, false), colour: await print(args, true) }
  ]))
)
const bundle = new URL("dist/fallback.cjs", import.meta.url).pathname
const builtAs = readFileSync(bundle, "utf8").split("\n", 1)[0]
const written = new URL("dist/pages.json", import.meta.url).pathname
writeFileSync(`${written}.${process.pid}`, JSON.stringify({ build: builtAs, pages }))
renameSync(`${written}.${process.pid}`, written)
