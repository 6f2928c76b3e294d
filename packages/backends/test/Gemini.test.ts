import { describe, expect, it } from "@effect/vitest"
import * as Gemini from "@fallback/backends/Gemini"
import * as Place from "@fallback/core/Place"
import * as Settings from "@fallback/core/Settings"
import * as Result from "effect/Result"
import { streamLines, text } from "./outputs.js"

const place = new Place.Place({ cli: "gemini", model: "gemini-2.5-flash" })
const lines = (...events: ReadonlyArray<object>) => events.map((event) => JSON.stringify(event)).join("\n")
const init = { type: "init", session_id: "g-1", model: "gemini-2.5-flash" }
const errorResult = (message: string) => ({ type: "result", status: "error", error: { type: "unknown", message } })
const kind = (finished: Partial<Parameters<typeof Gemini.readOutcome>[0]>) =>
  Result.match(Gemini.readOutcome({ exitCode: 1, signal: null, stdout: "", stderr: "", ...finished }, place), {
    onFailure: (failure) => failure._tag,
    onSuccess: () => "answer"
  })

describe("Gemini.argv", () => {
  it("headless with trust skipped, stream-json, and the prompt as one --prompt= argument", () => {
    const argv = Gemini.argv({
      prompt: "-y --yolo",
      model: "gemini-2.5-flash",
      resume: "g-1",
      settings: Settings.plain
    })
    expect(argv).toEqual([
      "-m",
      "gemini-2.5-flash",
      "--skip-trust",
      "--output-format",
      "stream-json",
      "--resume",
      "g-1",
      "--prompt=-y --yolo"
    ])
  })
})

describe("Gemini.readOutcome", () => {
  it("lands only on result status success; the text is the assistant's deltas joined", () => {
    const outcome = Gemini.readOutcome({
      exitCode: 0,
      signal: null,
      stderr: "Warning: 256-color support not detected.",
      stdout: lines(init, { type: "message", role: "user", content: "hi" }, {
        type: "message",
        role: "assistant",
        content: "he",
        delta: true
      }, {
        type: "message",
        role: "assistant",
        content: "llo",
        delta: true
      }, { type: "result", status: "success", stats: { input_tokens: 7, output_tokens: 2 } })
    }, place)
    expect(Result.getOrThrow(outcome).events.at(-1)).toMatchObject({
      _tag: "Result",
      text: "hello",
      usage: { input: 7, output: 2 }
    })
  })

  it("exit 0 with no result (its answer to SIGTERM on the group, or a cut stream) is not an answer", () => {
    expect(kind({ exitCode: 0, stdout: lines(init) })).not.toBe("answer")
  })

  it("the exit status is the HTTP status modulo 256", () => {
    expect(kind({ exitCode: 173, stdout: lines(init, errorResult("[API Error: Resource has been exhausted]")) })).toBe(
      "RateLimited"
    )
    expect(kind({ exitCode: 147, stdout: lines(init, errorResult("[API Error: permission]")) })).toBe("AuthRefused")
    expect(kind({ exitCode: 247, stdout: lines(init, errorResult("[API Error: The model is overloaded.]")) })).toBe(
      "RateLimited"
    )
    expect(kind({ exitCode: 244, stdout: lines(init, errorResult("[API Error: internal]")) })).toBe("Unknown")
    expect(kind({ exitCode: 246, stdout: lines(init, errorResult("[API Error: bad gateway]")) })).toBe("ConnectionLost")
  })

  it("a daily quota is QuotaExhausted; a 400 about the token count is ContextTooLong", () => {
    expect(
      kind({
        exitCode: 173,
        stdout: lines(init, errorResult("[API Error: You have exhausted your daily quota on this model.]"))
      })
    ).toBe("QuotaExhausted")
    expect(
      kind({
        exitCode: 144,
        stdout: lines(
          init,
          errorResult(
            "[API Error: The input token count (1048577) exceeds the maximum number of tokens allowed (1048576).]"
          )
        )
      })
    ).toBe("ContextTooLong")
  })

  it("an Attempt-failed line on stderr names the failure of a run stopped on it", () => {
    expect(
      kind({
        exitCode: 0,
        stdout: lines(init),
        stderr:
          "Ripgrep is not available. Falling back to GrepTool.\nAttempt 1 failed with status 503. Retrying with backoff..."
      })
    ).toBe("RateLimited")
    expect(
      kind({
        exitCode: 0,
        stdout: lines(init),
        stderr:
          "Attempt 1 failed: Resource has been exhausted (e.g. check quota).\nSuggested retry after 1s.. Retrying after 5180ms..."
      })
    ).toBe("RateLimited")
  })

  it("fixed codes: 41 auth, 130 cancelled, 42 a session it cannot resume", () => {
    expect(kind({ exitCode: 41, stderr: "Invalid auth method selected." })).toBe("AuthRefused")
    expect(kind({ exitCode: 130 })).toBe("Killed")
    expect(kind({ exitCode: 42, stderr: "Error resuming session: Invalid session identifier \"x\"." })).toBe("Unknown")
  })

  it.prop(
    "never throws, and never lands without a successful result",
    [streamLines(), text],
    ([stdout, stderr]) =>
      Result.isFailure(Gemini.readOutcome({
        exitCode: 0,
        signal: null,
        stdout: stdout.filter((line) => !line.includes("success")).join("\n"),
        stderr
      }, place))
  )
})
