// Runs the bundle build.mjs wrote (dist/fallback.cjs) from the V8 code cache it wrote beside it
// (dist/fallback.cache): a start then reads compiled code instead of parsing and compiling a
// megabyte of JavaScript. Node 20 has no compile cache of its own (module.enableCompileCache
// came in 22.1), and only a script, not a module, can be compiled from a cache there (vm.Script).
// A cache that is missing, that was written for another build of the bundle (its first line names
// the build, a random id in the bundle's first line), or that V8 rejects (another node, other
// flags) is left aside: the bundle is compiled as it would be without one, and runs the same.
import { readFileSync, renameSync, writeFileSync } from "node:fs"
import Module, { createRequire } from "node:module"
import { dirname } from "node:path"
import { fileURLToPath } from "node:url"
import { Script } from "node:vm"

/** The bundle: the whole command line as one CommonJS script. */
export const bundle = fileURLToPath(new URL("../dist/fallback.cjs", import.meta.url))

/** The code cache for the bundle, written by build.mjs. */
export const cache = fileURLToPath(new URL("../dist/fallback.cache", import.meta.url))

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
export const run = ({ record = false } = {}) => {
  const source = readFileSync(bundle, "utf8")
  const build = source.slice(0, source.indexOf("\n"))
  const script = new Script(Module.wrap(source), { filename: bundle, cachedData: record ? undefined : cached(build) })
  if (record) {
    process.once("exit", () => {
      writeFileSync(`${cache}.${process.pid}`, Buffer.concat([Buffer.from(`${build}\n`), script.createCachedData()]))
      renameSync(`${cache}.${process.pid}`, cache)
    })
  }
  const module = { exports: {} }
  script.runInThisContext().call(module.exports, module.exports, createRequire(bundle), module, bundle, dirname(bundle))
}
