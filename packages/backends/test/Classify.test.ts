/**
 * One classifier for every backend: a status is the same kind whichever way it arrived, and the
 * real CLIs' known misreadings, each from the lines the CLI printed when it happened.
 */
import { describe, expect, it } from "@effect/vitest"
import { Claude, Codex, OpenCode } from "@fallback/backends"
import { Place } from "@fallback/core"
import * as Either from "effect/Either"
import { byMessage, byStatus } from "../src/internal/classify.js"
import { classify } from "../src/internal/httpFailure.js"

const place = new Place.Place({ cli: "local", model: "m" })
const lines = (...events: ReadonlyArray<object>) => events.map((event) => JSON.stringify(event)).join("\n")
const failed = (outcome: Either.Either<unknown, { readonly _tag: string; readonly said: string }>) =>
  Either.getOrThrow(Either.flip(outcome))

describe("one classifier", () => {
  it("each status is one kind, through a CLI or over HTTP", () => {
    for (const status of [400, 401, 402, 403, 404, 408, 413, 429, 500, 502, 503, 504, 529]) {
      const cli = byStatus(status, `HTTP ${status}`, place)._tag
      const http = classify({ status, headers: {}, body: `HTTP ${status}` }, place, 0)._tag
      expect([status, http]).toEqual([status, cli])
    }
    expect(byStatus(502, "Bad Gateway", place)._tag).toBe("ConnectionLost")
    expect(byStatus(402, "Payment Required", place)._tag).toBe("QuotaExhausted")
    expect(classify({ status: 403, headers: {}, body: "Forbidden" }, place, 0)).toMatchObject({
      _tag: "AuthRefused",
      status: 403
    })
  })

  it("the same words are the same kind either way", () => {
    for (
      const words of [
        "You exceeded your current quota",
        "prompt is too long: 210000 tokens > 200000 maximum",
        "Overloaded",
        "invalid x-api-key",
        "model_not_found",
        "database is locked"
      ]
    ) {
      expect(classify({ headers: {}, body: JSON.stringify({ error: { message: words } }) }, place, 0)._tag)
        .toBe(byMessage(words, place)._tag)
    }
  })

  it("\"upstream error\" is not a stream that broke (issue 12 #16), nor is a word ending in 'terminated'", () => {
    expect(byMessage("upstream error", place)._tag).toBe("Unknown")
    expect(byMessage("undetermined failure", place)._tag).toBe("Unknown")
    expect(byMessage("stream error: the connection closed", place)._tag).toBe("ConnectionLost")
  })
})

describe("the real CLIs' misreadings", () => {
  it("claude: an api_retry whose error_status is null, stopped by the engine, is ConnectionLost, not Killed", () => {
    const failure = failed(Claude.readOutcome({
      exitCode: null,
      signal: "SIGTERM",
      stderr: "",
      stdout: lines(
        { type: "system", subtype: "init", session_id: "s-1", model: "claude-sonnet-4-5" },
        {
          type: "system",
          subtype: "api_retry",
          attempt: 1,
          max_retries: 10,
          retry_delay_ms: 588,
          error_status: null,
          error: "Connection error.",
          session_id: "s-1"
        },
        {
          type: "system",
          subtype: "api_retry",
          attempt: 2,
          max_retries: 10,
          retry_delay_ms: 1150,
          error_status: null,
          error: "Connection error.",
          session_id: "s-1"
        }
      )
    }, new Place.Place({ cli: "claude", model: "claude-sonnet-4-5" })))
    expect(failure._tag).toBe("ConnectionLost")
    expect(failure.said).toBe("Connection error.")
  })

  it("opencode: its locked database as 'Failed query' or 'Failed to execute statement' is StoreBusy", () => {
    const at = new Place.Place({ cli: "opencode", model: "mock/mock-model" })
    for (
      const stderr of [
        "Error: Failed query: insert into \"message\" (\"id\", \"session_id\", \"time_created\", \"data\") values (?, ?, ?, ?)\nparams: msg_1,ses_1,1764547200000,{}",
        "error: Failed to execute statement"
      ]
    ) {
      expect(failed(OpenCode.readOutcome({ exitCode: 1, signal: null, stdout: "", stderr }, at))._tag).toBe("StoreBusy")
    }
  })

  it("codex: a model 'at capacity' is a rate limit", () => {
    const failure = failed(Codex.readOutcome({
      exitCode: 1,
      signal: null,
      stderr: "",
      stdout: lines(
        { type: "thread.started", thread_id: "t-1" },
        { type: "turn.started" },
        { type: "error", message: "Selected model is at capacity. Please try a different model." },
        { type: "turn.failed", error: { message: "Selected model is at capacity. Please try a different model." } }
      )
    }, new Place.Place({ cli: "codex", model: "gpt-5.5" })))
    expect(failure._tag).toBe("RateLimited")
  })
})
