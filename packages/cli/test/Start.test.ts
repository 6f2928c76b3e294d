import { execFile } from "node:child_process"
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"

import { describe, expect, it } from "@effect/vitest"

// How the installed command starts (bin/load.js): help pages printed from dist/pages.json, and a
// code cache of its own when node rejects the one the build wrote. Each test runs a copy of bin/
// and dist/ in a folder of its own, so the bundle the other tests use is never touched.
const cli = join(import.meta.dirname, "..")
const copy = () => {
  if (!existsSync(join(cli, "dist/pages.json"))) {
    throw new Error("the command is not built: run `npm run build --workspace @fallback/cli`")
  }
  const folder = mkdtempSync(join(tmpdir(), "fallback-start-"))
  cpSync(join(cli, "bin"), join(folder, "bin"), { recursive: true })
  cpSync(join(cli, "dist"), join(folder, "dist"), { recursive: true })
  return folder
}

const start = async (folder: string, args: ReadonlyArray<string>, options: {
  readonly env?: Readonly<Record<string, string>>
  readonly replay?: boolean
  readonly tty?: boolean
  readonly flags?: ReadonlyArray<string>
} = {}) => {
  const code = `process.stdout.isTTY = ${options.tty ?? false}; ` +
    `require(process.argv[1]).run({ replay: ${options.replay ?? true} })`
  const { stderr, stdout } = await promisify(execFile)(
    process.execPath,
    [...(options.flags ?? []), "-e", code, join(folder, "bin/load.js"), ...args],
    { env: { PATH: process.env.PATH ?? "", HOME: folder, TMPDIR: folder, ...options.env }, timeout: 60_000 }
  )
  return { stdout, stderr }
}

describe("the command's start", () => {
  it("prints each help page exactly as the command line does, plain and in colour", async () => {
    const folder = copy()
    try {
      const written = JSON.parse(readFileSync(join(folder, "dist/pages.json"), "utf8"))
      const bundle = readFileSync(join(folder, "dist/fallback.cjs"), "utf8")
      expect(written.build).toBe(bundle.slice(0, bundle.indexOf("\n")))
      const pages = written.pages
      expect(Object.keys(pages)).toEqual(expect.arrayContaining(["", "--help", "-h", "--version", "list --help"]))
      for (const args of [[], ["--help"], ["list", "--help"], ["-h"], ["--version"]]) {
        for (const tty of [false, true]) {
          const env = tty ? {} : { NO_COLOR: "1" }
          const replayed = await start(folder, args, { env, tty })
          const live = await start(folder, args, { env, tty, replay: false })
          expect(replayed).toEqual(live)
        }
      }
      const coloured = await start(folder, ["--help"], { tty: true })
      expect(coloured.stdout).toMatch(/\u001b\[/)
      expect((await start(folder, ["--help"], { tty: true, env: { NO_COLOR: "1" } })).stdout).not.toMatch(/\u001b\[/)
    } finally {
      rmSync(folder, { recursive: true, force: true })
    }
  }, 120_000)

  it("--version says the version the package is published as", async () => {
    const folder = copy()
    try {
      const { version } = JSON.parse(readFileSync(join(cli, "package.json"), "utf8"))
      for (const replay of [true, false]) {
        expect((await start(folder, ["--version"], { replay })).stdout.trim()).toBe(version)
      }
    } finally {
      rmSync(folder, { recursive: true, force: true })
    }
  }, 120_000)

  it("leaves pages written for another build aside and starts the command line", async () => {
    const folder = copy()
    try {
      const file = join(folder, "dist/pages.json")
      const written = JSON.parse(readFileSync(file, "utf8"))
      written.build = "another build"
      written.pages["--help"].plain.stdout = "stale help\n"
      writeFileSync(file, JSON.stringify(written))
      const { stdout } = await start(folder, ["--help"], { env: { NO_COLOR: "1" } })
      expect(stdout).not.toContain("stale help")
      expect(stdout).toContain("Commands:")
    } finally {
      rmSync(folder, { recursive: true, force: true })
    }
  }, 120_000)

  it("writes a cache of its own when node rejects the build's, and starts from it next time", async () => {
    const folder = copy()
    try {
      const shipped = join(folder, "dist/fallback.cache")
      const build = readFileSync(shipped).subarray(0, readFileSync(shipped).indexOf(10)).toString()
      // what another version of node makes of the build's cache: V8 rejects it
      writeFileSync(shipped, Buffer.concat([Buffer.from(`${build}\n`), Buffer.alloc(4096, 7)]))
      const first = await start(folder, ["waits"], { env: { NO_COLOR: "1" } })
      expect(first.stdout).toContain("exponential")
      const own = readdirSync(folder).filter((name) => name.startsWith("fallback-compile-cache-"))
      expect(own).toHaveLength(1)
      const [cache] = readdirSync(join(folder, own[0]!))
      expect(cache).toBe(`${process.version}-${process.arch}.cache`)
      const second = await start(folder, ["waits"], { env: { NO_COLOR: "1" } })
      expect(second).toEqual(first)
    } finally {
      rmSync(folder, { recursive: true, force: true })
    }
  }, 120_000)

  it(
    "keeps a cache apart for other V8 flags, so starts with and without them do not rewrite each other's",
    async () => {
      const folder = copy()
      try {
        const env = { NO_COLOR: "1" }
        // V8 rejects the build's cache under another flag: the start writes a cache of its own
        const flagged = await start(folder, ["waits"], { env, flags: ["--no-opt"] })
        const [dir] = readdirSync(folder).filter((name) => name.startsWith("fallback-compile-cache-"))
        const [file] = readdirSync(join(folder, dir!))
        const written = statSync(join(folder, dir!, file!)).mtimeMs
        // a start without the flag takes the build's cache and leaves the flagged one as it was
        expect(await start(folder, ["waits"], { env })).toEqual(flagged)
        expect(await start(folder, ["waits"], { env, flags: ["--no-opt"] })).toEqual(flagged)
        expect(readdirSync(join(folder, dir!))).toEqual([file])
        expect(statSync(join(folder, dir!, file!)).mtimeMs).toBe(written)
      } finally {
        rmSync(folder, { recursive: true, force: true })
      }
    },
    120_000
  )
})
