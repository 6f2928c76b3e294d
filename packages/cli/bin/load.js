// Runs the bundle build.mjs wrote (dist/fallback.cjs) from the V8 code cache it wrote beside it
// (dist/fallback.cache): a start then reads compiled code instead of parsing and compiling a
// megabyte of JavaScript. Node 20 has no compile cache of its own (module.enableCompileCache
// came in 22.1), and only a script, not a module, can be compiled from a cache there (vm.Script).
// A cache that is missing, that was written for another build of the bundle (its first line names
// the build, a random id in the bundle's first line), or that V8 rejects (another node, other
// flags) is left aside: the bundle is compiled as it would be without one, and runs the same.
// The help pages (`fallback` alone, `--help`, `-h`, `--version`, `fallback COMMAND --help`) are the same
// on every run of a build: build.mjs writes what the bundle prints for them to dist/pages.json,
// and they are printed from there, without starting the command line at all.
const { closeSync, mkdirSync, openSync, readFileSync, readSync, renameSync, statSync, writeFileSync } = require("node:fs")
const Module = require("node:module")
const { tmpdir } = require("node:os")
const { dirname, join } = require("node:path")
const { Script } = require("node:vm")

/** The bundle: the whole command line as one CommonJS script. */
const bundle = join(__dirname, "../dist/fallback.cjs")

// the code cache for the bundle, written by build.mjs
const cache = join(__dirname, "../dist/fallback.cache")

// what the bundle prints for the help pages, written by build.mjs
const pages = join(__dirname, "../dist/pages.json")

// the bundle's first line, which names its build
const buildOf = () => {
  const head = Buffer.alloc(128)
  const fd = openSync(bundle, "r")
  try {
    const read = readSync(fd, head, 0, head.length, 0)
    return head.toString("utf8", 0, read).split("\n", 1)[0]
  } finally {
    closeSync(fd)
  }
}

// Prints the page for these arguments, when build.mjs wrote one for this build. The colours are
// kept as the command line keeps them (src/internal/colour.ts): on a terminal, without NO_COLOR.
const replayed = (args) => {
  if (args.length > 2) return false
  let written
  try {
    written = JSON.parse(readFileSync(pages, "utf8"))
  } catch {
    return false
  }
  const page = written.pages[args.join(" ")]
  if (page === undefined || written.build !== buildOf()) return false
  const colourful = (process.env.NO_COLOR === undefined || process.env.NO_COLOR === "") && process.stdout.isTTY === true
  const { status, stderr, stdout } = colourful ? page.colour : page.plain
  process.stdout.write(stdout)
  process.stderr.write(stderr)
  process.exitCode = status
  return true
}

// A cache of this user's own, for a node whose V8 rejects the one the build wrote (a tarball built
// on another version of node): written when a start finds no cache it can use, read first by the
// next. It sits where node's own compile cache does, in the temporary folder, in a folder of this
// user's that no one else can write to; any other folder is neither read nor written.
const own = join(tmpdir(), `fallback-compile-cache-${process.getuid?.() ?? "user"}`)
// V8 rejects a cache made under other flags, so a start with other flags (node's own, or
// NODE_OPTIONS) keeps a cache apart rather than rewriting the other's at every start
// (the code of a `node -e`, as the tests start the bin, is no flag)
const flags = [
  ...process.execArgv.filter((arg, i, all) => arg !== "-e" && all[i - 1] !== "-e"),
  process.env.NODE_OPTIONS ?? ""
].join(" ").trim()
const fnv = (text) => {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0
  return hash.toString(36)
}
const ownFile = join(own, `${process.version}-${process.arch}${flags === "" ? "" : `-${fnv(flags)}`}.cache`)

const ownIsSafe = () => {
  try {
    const { mode, uid } = statSync(own)
    return (mode & 0o022) === 0 && (process.getuid === undefined || uid === process.getuid())
  } catch {
    return false
  }
}

// Writes the code compiled by the time the process exits as the cache at `file`: beside it, then
// renamed into place, so a start that reads it meanwhile sees a whole one.
const recordAtExit = (script, build, file) =>
  process.once("exit", () => {
    try {
      writeFileSync(`${file}.${process.pid}`, Buffer.concat([Buffer.from(`${build}\n`), script.createCachedData()]))
      renameSync(`${file}.${process.pid}`, file)
    } catch {
      // a cache is only ever a head start
    }
  })

const cached = (file, build) => {
  let data
  try {
    data = readFileSync(file)
  } catch {
    return undefined
  }
  const end = data.indexOf(10)
  return end >= 0 && data.toString("utf8", 0, end) === build ? data.subarray(end + 1) : undefined
}

const compile = (source, cachedData) => new Script(Module.wrap(source), { filename: bundle, cachedData })

/**
 * Runs the command line on process.argv. With `record`, no cache is read, and when the process
 * exits the code compiled by then is written as the build's cache (build.mjs runs `--help` so).
 * With `replay` (unless recording), a help page build.mjs wrote is printed from dist/pages.json.
 */
const run = ({ record = false, replay = !record } = {}) => {
  if (replay && replayed(process.argv.slice(2))) return
  const source = readFileSync(bundle, "utf8")
  const build = source.slice(0, source.indexOf("\n"))
  let script
  if (record) {
    script = compile(source, undefined)
    recordAtExit(script, build, cache)
  } else {
    const data = (ownIsSafe() ? cached(ownFile, build) : undefined) ?? cached(cache, build)
    script = compile(source, data)
    if (data === undefined || script.cachedDataRejected) {
      try {
        mkdirSync(own, { recursive: true, mode: 0o700 })
      } catch {
        // no cache of its own, then
      }
      if (ownIsSafe()) recordAtExit(script, build, ownFile)
    }
  }
  const loaded = { exports: {} }
  script.runInThisContext().call(loaded.exports, loaded.exports, Module.createRequire(bundle), loaded, bundle, dirname(bundle))
}

module.exports = { bundle, pages, run }
