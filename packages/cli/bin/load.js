// Runs the bundle build.mjs wrote (dist/fallback.cjs) from the V8 code cache it wrote beside it
// (dist/fallback.cache): a start then reads compiled code instead of parsing and compiling a
// megabyte of JavaScript. Node 20 has no compile cache of its own (module.enableCompileCache
// came in 22.1), and only a script, not a module, can be compiled from a cache there (vm.Script).
// A cache that is missing, that was written for another build of the bundle (its first line names
// the build, a random id in the bundle's first line), or that V8 rejects (another node, other
// flags) is left aside: the bundle is compiled as it would be without one, and runs the same.
const { readFileSync, renameSync, writeFileSync } = require("node:fs")
const Module = require("node:module")
const { dirname, join } = require("node:path")
const { Script } = require("node:vm")

/** The bundle: the whole command line as one CommonJS script. */
const bundle = join(__dirname, "../dist/fallback.cjs")

// the code cache for the bundle, written by build.mjs
const cache = join(__dirname, "../dist/fallback.cache")

const cached = (build) => {
  let data
  try {
    data = readFileSync(cache)
  } catch {
    return undefined
  }
  const end = data.indexOf(10)
  return end >= 0 && data.toString("utf8", 0, end) === build ? data.subarray(end + 1) : undefined
}

/**
 * Runs the command line on process.argv. With `record`, no cache is read, and when the process
 * exits the code compiled by then is written as the cache (build.mjs runs `--help` so); it is
 * written beside and renamed into place, so a start that reads it meanwhile sees a whole one.
 */
const run = ({ record = false } = {}) => {
  const source = readFileSync(bundle, "utf8")
  const build = source.slice(0, source.indexOf("\n"))
  const script = new Script(Module.wrap(source), { filename: bundle, cachedData: record ? undefined : cached(build) })
  if (record) {
    process.once("exit", () => {
      writeFileSync(`${cache}.${process.pid}`, Buffer.concat([Buffer.from(`${build}\n`), script.createCachedData()]))
      renameSync(`${cache}.${process.pid}`, cache)
    })
  }
  const loaded = { exports: {} }
  script.runInThisContext().call(loaded.exports, loaded.exports, Module.createRequire(bundle), loaded, bundle, dirname(bundle))
}

module.exports = { bundle, run }
