/**
 * The real CLIs' known misreadings, each from the lines the CLI printed when it happened (the
 * classifier's own table is tested in core's Classify.test.ts).
 */
import { describe, expect, it } from "@effect/vitest"
import * as Claude from "@fallback/backends/Claude"
import * as Codex from "@fallback/backends/Codex"
import * as OpenCode from "@fallback/backends/OpenCode"
import * as Place from "@fallback/core/Place"
import * as Result from "effect/Result"

const lines = (...events: ReadonlyArray<object>) => events.map((event) => JSON.stringify(event)).join("\n")
const failed = (outcome: Result.Result<unknown, { readonly _tag: string; readonly said: string }>) =>
  Result.getOrThrow(Result.flip(outcome))

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
