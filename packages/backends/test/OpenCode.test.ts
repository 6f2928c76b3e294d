import { describe, expect, it } from "@effect/vitest"
import * as OpenCode from "@fallback/backends/OpenCode"
import * as Place from "@fallback/core/Place"
import * as Settings from "@fallback/core/Settings"
import * as DateTime from "effect/DateTime"
import * as Duration from "effect/Duration"
import * as Result from "effect/Result"
import { streamLines, text } from "./outputs.js"

const place = new Place.Place({ cli: "opencode", model: "mock/mock-model" })
const lines = (...events: ReadonlyArray<object>) => events.map((event) => JSON.stringify(event)).join("\n")
const start = { type: "step_start", sessionID: "ses_1", part: { type: "step-start" } }
const error = (name: string, data: object) => ({ type: "error", sessionID: "ses_1", error: { name, data } })
const judged = (finished: Partial<Parameters<typeof OpenCode.readOutcome>[0]>) =>
  OpenCode.readOutcome({ exitCode: 1, signal: null, stdout: "", stderr: "", ...finished }, place)
const kind = (finished: Partial<Parameters<typeof OpenCode.readOutcome>[0]>) =>
  Result.match(judged(finished), { onFailure: (failure) => failure._tag, onSuccess: () => "answer" })

describe("OpenCode.argv", () => {
  it("run --format json with the model, the session to continue, and the prompt after --", () => {
    expect(OpenCode.argv({ prompt: "--auto", model: "mock/m", resume: "ses_1", settings: Settings.plain })).toEqual([
      "run",
      "--format",
      "json",
      "-m",
      "mock/m",
      "--session",
      "ses_1",
      "--",
      "--auto"
    ])
  })
})

describe("OpenCode.readOutcome", () => {
  it("lands on step_finish with no error event, with the text and tokens", () => {
    const outcome = judged({
      exitCode: 0,
      stdout: lines(start, { type: "text", sessionID: "ses_1", part: { text: "hi" } }, {
        type: "step_finish",
        sessionID: "ses_1",
        part: { reason: "stop", tokens: { input: 4, output: 1 } }
      })
    })
    expect(Result.getOrThrow(outcome).sessionId).toBe("ses_1")
    expect(Result.getOrThrow(outcome).events.at(-1)).toMatchObject({
      _tag: "Result",
      text: "hi",
      usage: { input: 4, output: 1 }
    })
  })

  it("an error event fails the turn even with a step_finish and exit 0", () => {
    expect(
      kind({
        exitCode: 0,
        stdout: lines(
          start,
          { type: "step_finish", part: {} },
          error("APIError", { message: "Too Many Requests", statusCode: 429 })
        )
      })
    ).toBe("RateLimited")
  })

  it("its error names and status codes decide the kind; retry-after comes from the response headers", () => {
    expect(kind({ stdout: lines(start, error("ContextOverflowError", { message: "too long" })) })).toBe(
      "ContextTooLong"
    )
    expect(kind({ stdout: lines(start, error("APIError", { message: "Unauthorized", statusCode: 401 })) })).toBe(
      "AuthRefused"
    )
    expect(
      kind({
        stdout: lines(
          start,
          error("APIError", { message: "Cannot connect to API: The socket connection was closed unexpectedly." })
        )
      })
    ).toBe("ConnectionLost")
    const limited = Result.getOrThrow(Result.flip(judged({
      stdout: lines(
        start,
        error("APIError", { message: "Too Many Requests", statusCode: 429, responseHeaders: { "retry-after": "12" } })
      )
    })))
    expect(limited).toMatchObject({ _tag: "RateLimited", retryAfter: Duration.seconds(12) })
  })

  it("a spent quota comes back when the reset headers say, counted from the response's own date", () => {
    const quota = Result.getOrThrow(Result.flip(judged({
      stdout: lines(
        start,
        error("APIError", {
          message: "You exceeded your current quota",
          statusCode: 429,
          responseHeaders: {
            date: "Mon, 30 Nov 2026 06:45:01 GMT",
            "x-ratelimit-reset-requests": "20m0s",
            "x-ratelimit-reset-tokens": "30s"
          }
        })
      )
    })))
    expect(quota).toMatchObject({ _tag: "QuotaExhausted", until: DateTime.makeUnsafe("2026-11-30T07:05:01.000Z") })
  })

  it("stderr with its colour codes: a locked database is StoreBusy; an unknown session is Unknown", () => {
    expect(kind({ stderr: "\u001b[91m\u001b[1mError: \u001b[0mdatabase is locked" })).toBe("StoreBusy")
    expect(kind({ stderr: "\u001b[91m\u001b[1mError: \u001b[0mSession not found" })).toBe("Unknown")
    expect(kind({ stderr: "Error: opencode-ai's postinstall script was not run." })).toBe("NotInstalled")
  })

  it.prop(
    "never throws, and never lands without step_finish",
    [streamLines(), text],
    ([stdout, stderr]) =>
      Result.isFailure(OpenCode.readOutcome({
        exitCode: 0,
        signal: null,
        stdout: stdout.filter((line) => !line.includes("step_finish")).join("\n"),
        stderr
      }, place))
  )
})
