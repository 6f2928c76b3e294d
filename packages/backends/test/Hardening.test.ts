/**
 * Backends that hung a turn, kept unbounded output or ran the CLI somewhere else (issue 12 #12–#14).
 */
import { describe, expect, it } from "@effect/vitest"
import * as Account from "@fallback/core/Account"
import * as ConfigFile from "@fallback/core/ConfigFile"
import * as Secret from "@fallback/core/Secret"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Child from "../src/internal/cli/child.js"
import { environment } from "../src/internal/cli/environment.js"
import { alive, executable, folder } from "./fakes.js"

const run = (bin: string, args: ReadonlyArray<string> = []) =>
  Effect.scoped(Effect.gen(function*() {
    const child = yield* Child.start(
      { bin, args, env: { PATH: process.env.PATH ?? "" }, cwd: process.cwd() },
      Duration.seconds(2)
    )
    const lines = yield* Stream.runCollect(child.lines)
    return { lines, ended: yield* child.ended }
  }))

describe("a CLI's run", () => {
  // Before: the turn waited for every holder of the pipes (15 min, then Timeout).
  it.live(
    "ends when the CLI exits, though a process it left in the background holds its stdout (#12)",
    () =>
      Effect.gen(function*() {
        const dir = folder()
        const bin = executable(
          dir,
          "leaves",
          `const { spawn } = require("node:child_process")
const holder = spawn(process.execPath, ["-e", "setTimeout(() => {}, 600000)"], { detached: true, stdio: ["ignore", "inherit", "inherit"] })
holder.unref()
require("node:fs").writeFileSync(${JSON.stringify(path.join(dir, "holder"))}, String(holder.pid))
console.log("the answer")`
        )
        const { ended, lines } = yield* run(bin)
        const holder = Number(fs.readFileSync(path.join(dir, "holder"), "utf8"))
        expect(lines).toEqual([{ stream: "stdout", text: "the answer" }])
        expect(ended.exitCode).toBe(0)
        expect(alive(holder)).toBe(true)
        process.kill(holder, "SIGKILL")
      }),
    60_000
  )

  // Before: a 24 MB line was kept whole and split again on every chunk (quadratic: 18 s).
  it.live(
    "keeps at most the documented length of a line, and reads the lines after it (#13)",
    () =>
      Effect.gen(function*() {
        const dir = folder()
        const bin = executable(
          dir,
          "floods",
          `const chunk = "x".repeat(1 << 20)
for (let i = 0; i < 24; i++) process.stdout.write(chunk)
process.stdout.write("\\nafter\\n")`
        )
        const { ended, lines } = yield* run(bin)
        expect(ended.exitCode).toBe(0)
        expect(lines.length).toBe(2)
        expect(lines[0]!.text.length).toBeLessThan(Child.longestLine + 100)
        expect(lines[0]!.text).toMatch(/… \(\d+ more characters\)$/)
        expect(lines[1]!.text).toBe("after")
      }),
    60_000
  )

  it("keeps the latest of a run's output, no more than the documented cap", () => {
    const kept = Child.keptLines()
    for (let i = 0; i < 3000; i++) kept.push(`${i} ${"y".repeat(8192)}`)
    const text = kept.text()
    expect(text.length).toBeLessThanOrEqual(Child.keptOutput)
    expect(text.endsWith(`2999 ${"y".repeat(8192)}`)).toBe(true)
  })

  it.live("a prompt node cannot pass (a NUL byte) is a child that did not start, not a crash (#15)", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.result(run(process.execPath, ["-e", "0", "a\u0000b"]))
      expect(Result.isFailure(exit) && exit.failure._tag).toBe("Unstarted")
    }))
})

const cli = { passes: ["ANTHROPIC_API_KEY"], quiet: {}, home: (dir: string) => ({ CLAUDE_CONFIG_DIR: dir }) }

describe("an account's environment", () => {
  it("expands ~ in configDir as doctor does (#14)", () => {
    const account = new Account.Account({ name: "work", configDir: "~/.claude-work" })
    const env = Result.getOrThrow(environment({ HOME: "/home/u" }, Option.some(account), cli, {}))
    expect(env.CLAUDE_CONFIG_DIR).toBe("/home/u/.claude-work")
    expect(ConfigFile.expandHome("~", "/home/u")).toBe("/home/u")
    expect(ConfigFile.expandHome("~other/x", "/home/u")).toBe("~other/x")
  })

  it("holds every value it reads for a key, so no message shows it (#1)", () => {
    const account = new Account.Account({ name: "work", env: { ANTHROPIC_API_KEY: { fromEnv: "WORK_KEY" } } })
    environment({ WORK_KEY: "plain-looking-value-42" }, Option.some(account), cli, {})
    environment({ ANTHROPIC_API_KEY: "another-plain-value-43" }, Option.none(), cli, {})
    expect(Secret.mask("got plain-looking-value-42 and another-plain-value-43")).toBe("got *** and ***")
  })
})
