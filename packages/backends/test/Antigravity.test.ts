import { describe, expect, it } from "@effect/vitest"
import * as Antigravity from "@fallback/backends/Antigravity"
import * as Place from "@fallback/core/Place"
import * as Settings from "@fallback/core/Settings"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Stream from "effect/Stream"
import * as path from "node:path"
import { executable, folder } from "./fakes.js"

const place = new Place.Place({ cli: "antigravity", model: "gemini-3-pro" })
const terminated = "Agent execution terminated due to error"

/**
 * A fake antigravity: with FAKE_STATUS it writes that status to its log folder and dies the way
 * antigravity does, saying nothing else; without it, it answers.
 */
const fake = (dir: string) =>
  executable(
    dir,
    "antigravity",
    `const fs = require("node:fs"), path = require("node:path")
const out = (event) => process.stdout.write(JSON.stringify(event) + "\\n")
out({ type: "init", session_id: "ag-1", model: "gemini-3-pro" })
if (process.env.FAKE_STATUS) {
  const log = path.join(process.env.HOME, ".gemini", "antigravity-cli", "log")
  fs.mkdirSync(log, { recursive: true })
  fs.appendFileSync(path.join(log, "cli.log"), "2026-11-30T06:00:00Z ERROR request failed: HTTP " + process.env.FAKE_STATUS + " from the model server\\n")
  console.error(${JSON.stringify(terminated)})
  process.exitCode = 1
} else {
  out({ type: "message", role: "assistant", content: "hi", delta: true })
  out({ type: "result", status: "success", stats: {} })
}`
  )

const turn = (dir: string, status: string | undefined) =>
  Effect.scoped(Effect.gen(function*() {
    const backend = Antigravity.make({
      bin: path.join(dir, "antigravity"),
      cwd: dir,
      env: { HOME: dir, ...(status === undefined ? {} : { FAKE_STATUS: status }) }
    })
    const session = yield* backend.open(place, Option.none(), Settings.plain, {})
    return yield* Stream.runCollect(session.turn({ text: "hi", history: [] })).pipe(Effect.result)
  }))

describe("Antigravity", () => {
  it.live("when its streams say only that it terminated, the HTTP status in its log names the kind", () =>
    Effect.gen(function*() {
      const dir = folder()
      fake(dir)
      expect((yield* turn(dir, "429")).pipe(Result.flip, Result.getOrThrow)._tag).toBe("RateLimited")
      expect((yield* turn(dir, "401")).pipe(Result.flip, Result.getOrThrow)._tag).toBe("AuthRefused")
      expect((yield* turn(dir, "404")).pipe(Result.flip, Result.getOrThrow)._tag).toBe("ModelNotFound")
    }))

  it.live("only what the log gained during the run counts: an old 429 there does not make a later answer fail", () =>
    Effect.gen(function*() {
      const dir = folder()
      fake(dir)
      yield* turn(dir, "429")
      const answered = yield* turn(dir, undefined)
      expect(Result.isSuccess(answered)).toBe(true)
      expect((Result.getOrThrow(answered)).at(-1)).toMatchObject({ _tag: "Result", text: "hi" })
    }))

  it("readOutcome: no log, or a log with no status, leaves an Unknown saying it terminated", () => {
    const finished = { exitCode: 1, signal: null, stdout: "", stderr: terminated }
    const noLog = Result.getOrThrow(Result.flip(Antigravity.readOutcome(finished, place)))
    expect(noLog._tag).toBe("Unknown")
    expect(noLog.said).toContain("terminated")
    const quietLog = Antigravity.readOutcome({ ...finished, log: "INFO started\nINFO stopping" }, place)
    expect(Result.getOrThrow(Result.flip(quietLog))._tag).toBe("Unknown")
    const statusLog = Antigravity.readOutcome({ ...finished, log: "{\"level\":\"error\",\"statusCode\":503}" }, place)
    expect(Result.getOrThrow(Result.flip(statusLog))._tag).toBe("RateLimited")
  })

  it("a log is not read over what the streams already named", () => {
    const stdout = JSON.stringify({
      type: "result",
      status: "error",
      error: { message: "[API Error: quota exceeded]" }
    })
    const outcome = Antigravity.readOutcome(
      { exitCode: 1, signal: null, stdout, stderr: terminated, log: "HTTP 401" },
      place
    )
    expect(Result.getOrThrow(Result.flip(outcome))._tag).toBe("QuotaExhausted")
  })

  it.live("not there at all is NotInstalled, saying how to get it", () =>
    Effect.gen(function*() {
      const failure = (yield* turn(folder(), undefined)).pipe(Result.flip, Result.getOrThrow)
      expect(failure).toMatchObject({ _tag: "NotInstalled", install: Antigravity.install })
    }))
})
