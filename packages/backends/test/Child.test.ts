import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Child from "../src/internal/cli/child.js"
import { alive, executable, folder } from "./fakes.js"

const run = (bin: string, grace = Duration.seconds(2)) =>
  Effect.scoped(Effect.gen(function*() {
    const child = yield* Child.start({
      bin,
      args: ["one arg; with $(shell) `chars`"],
      env: { PATH: process.env.PATH ?? "" },
      cwd: process.cwd()
    }, grace)
    const lines = yield* Stream.runCollect(child.lines)
    return { lines, ended: yield* child.ended }
  }))

const pidFile = async (file: string): Promise<number> => {
  for (let i = 0; i < 200; i++) {
    if (fs.existsSync(file) && fs.readFileSync(file, "utf8").trim() !== "") return Number(fs.readFileSync(file, "utf8"))
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  throw new Error(`no pid in ${file}`)
}

const gone = async (pid: number): Promise<boolean> => {
  for (let i = 0; i < 100; i++) {
    if (!alive(pid)) return true
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return false
}

describe("Child", () => {
  it.live("gives each line on its stream in order, the exit status, and the argument as one, unread by a shell", () =>
    Effect.gen(function*() {
      const dir = folder()
      const bin = executable(
        dir,
        "prints",
        `console.log("a"); console.error("e1"); console.log(process.argv[2]); process.stdout.write("no newline"); process.exitCode = 3`
      )
      const { ended, lines } = yield* run(bin)
      expect(ended).toEqual({ exitCode: 3, signal: null })
      expect(lines.filter((line) => line.stream === "stdout").map((line) => line.text)).toEqual([
        "a",
        "one arg; with $(shell) `chars`",
        "no newline"
      ])
      expect(lines.filter((line) => line.stream === "stderr").map((line) => line.text)).toEqual(["e1"])
    }))

  it.live("names the signal a child died by", () =>
    Effect.gen(function*() {
      const dir = folder()
      const { ended } = yield* run(executable(dir, "dies", `process.kill(process.pid, "SIGKILL")`))
      expect(ended).toEqual({ exitCode: null, signal: "SIGKILL" })
    }))

  it.live("a binary that is not there does not start, and says ENOENT", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(run("/nonexistent/fallback-no-such-cli"))
      expect(error.code).toBe("ENOENT")
    }))

  it.live("a file that is not executable does not start, and says EACCES", () =>
    Effect.gen(function*() {
      const dir = folder()
      const file = path.join(dir, "plain")
      fs.writeFileSync(file, "not a program", { mode: 0o644 })
      const error = yield* Effect.flip(run(file))
      expect(error.code).toBe("EACCES")
    }))

  it.live("scope close kills a child that ignores SIGTERM: SIGKILL after the grace, and close returns", () =>
    Effect.gen(function*() {
      const dir = folder()
      const pids = path.join(dir, "pid")
      const bin = executable(
        dir,
        "stubborn",
        `process.on("SIGTERM", () => {}); require("node:fs").writeFileSync(${
          JSON.stringify(pids)
        }, String(process.pid)); setInterval(() => {}, 1000)`
      )
      const fiber = yield* Effect.forkChild(run(bin, Duration.millis(300)))
      const pid = yield* Effect.promise(() => pidFile(pids))
      // A close that waited on the child would never return: the stand-in runs until killed.
      yield* Fiber.interrupt(fiber)
      expect(yield* Effect.promise(() => gone(pid))).toBe(true)
    }))

  it.live("scope close kills the whole group: no grandchild is left behind", () =>
    Effect.gen(function*() {
      const dir = folder()
      const pids = path.join(dir, "grandchild")
      const bin = executable(
        dir,
        "parent",
        `const { spawn } = require("node:child_process")
const grandchild = spawn(process.execPath, ["-e", "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)"], { stdio: "ignore" })
require("node:fs").writeFileSync(${JSON.stringify(pids)}, String(grandchild.pid))
setInterval(() => {}, 1000)`
      )
      const fiber = yield* Effect.forkChild(run(bin, Duration.millis(300)))
      const pid = yield* Effect.promise(() => pidFile(pids))
      expect(alive(pid)).toBe(true)
      yield* Fiber.interrupt(fiber)
      expect(yield* Effect.promise(() => gone(pid))).toBe(true)
    }))

  it.live("a child that exits leaving a grandchild running: the grandchild is killed, the run ends", () =>
    Effect.gen(function*() {
      const dir = folder()
      const pids = path.join(dir, "orphan")
      const bin = executable(
        dir,
        "leaves",
        `const { spawn } = require("node:child_process")
const orphan = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: ["ignore", "inherit", "inherit"] })
require("node:fs").writeFileSync(${JSON.stringify(pids)}, String(orphan.pid))
console.log("done")
process.exit(0)`
      )
      const { ended, lines } = yield* run(bin).pipe(Effect.timeout(Duration.seconds(10)))
      expect(ended).toEqual({ exitCode: 0, signal: null })
      expect(lines.map((line) => line.text)).toEqual(["done"])
      expect(yield* Effect.promise(() => gone(Number(fs.readFileSync(pids, "utf8"))))).toBe(true)
    }))
})
