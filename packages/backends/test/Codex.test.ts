import { describe, expect, it } from "@effect/vitest"
import * as Codex from "@fallback/backends/Codex"
import * as Place from "@fallback/core/Place"
import * as Settings from "@fallback/core/Settings"
import * as Result from "effect/Result"
import { streamLines, text } from "./outputs.js"

const place = new Place.Place({ cli: "codex", model: "gpt-5.5" })
const lines = (...events: ReadonlyArray<object>) => events.map((event) => JSON.stringify(event)).join("\n")
const started = { type: "thread.started", thread_id: "t-1" }
const kind = (finished: Partial<Parameters<typeof Codex.readOutcome>[0]>) =>
  Result.match(Codex.readOutcome({ exitCode: 1, signal: null, stdout: "", stderr: "", ...finished }, place), {
    onFailure: (failure) => failure._tag,
    onSuccess: () => "answer"
  })

describe("Codex.argv", () => {
  it("exec --json with the provider's retries off, and the prompt after --; resume goes before it", () => {
    const provider = { id: "mock", baseUrl: "http://127.0.0.1:9/v1", envKey: "MOCK_KEY" }
    const fresh = Codex.argv({ prompt: "-c x=1", model: "gpt-5.5", resume: undefined, settings: Settings.plain }, {
      provider
    })
    expect(fresh.slice(0, 5)).toEqual(["exec", "--json", "--skip-git-repo-check", "-m", "gpt-5.5"])
    expect(fresh).toContain("model_providers.mock.base_url=\"http://127.0.0.1:9/v1\"")
    expect(fresh).toContain("model_providers.mock.request_max_retries=0")
    expect(fresh).toContain("model_providers.mock.stream_max_retries=0")
    expect(fresh.slice(-2)).toEqual(["--", "-c x=1"])
    const resumed = Codex.argv({ prompt: "more", model: "gpt-5.5", resume: "t-1", settings: Settings.plain }, {
      provider,
      retries: true
    })
    expect(resumed.slice(-4)).toEqual(["resume", "t-1", "--", "more"])
    expect(resumed).not.toContain("model_providers.mock.request_max_retries=0")
  })
})

describe("Codex.readOutcome", () => {
  it("lands only on turn.completed, with the last agent message as the result", () => {
    const outcome = Codex.readOutcome({
      exitCode: 0,
      signal: null,
      stderr: "Reading additional input from stdin...",
      stdout: lines(started, { type: "turn.started" }, {
        type: "item.completed",
        item: { type: "agent_message", text: "hi" }
      }, {
        type: "turn.completed",
        usage: { input_tokens: 3, output_tokens: 1 }
      })
    }, place)
    expect(Result.getOrThrow(outcome).sessionId).toBe("t-1")
    expect(Result.getOrThrow(outcome).events.at(-1)).toMatchObject({
      _tag: "Result",
      text: "hi",
      usage: { input: 3, output: 1 }
    })
  })

  it("a warning item on a completed turn does not fail it; exit 0 without turn.completed does", () => {
    const warning = { type: "item.completed", item: { type: "error", message: "Model metadata for `x` not found" } }
    expect(kind({ exitCode: 0, stdout: lines(started, warning, { type: "turn.completed", usage: {} }) })).toBe("answer")
    expect(
      kind({
        exitCode: 0,
        stdout: lines(started, { type: "item.completed", item: { type: "agent_message", text: "429" } })
      })
    ).toBe("Unknown")
  })

  it("turn.failed is judged by the status in codex's words, else by the words", () => {
    const failed = (message: string) => kind({ stdout: lines(started, { type: "turn.failed", error: { message } }) })
    expect(failed("unexpected status 401 Unauthorized: Missing bearer")).toBe("AuthRefused")
    expect(failed("exceeded retry limit, last status: 429 Too Many Requests")).toBe("RateLimited")
    expect(failed("unexpected status 404 Not Found: model gpt-x")).toBe("ModelNotFound")
    expect(failed("We’re currently experiencing high demand, which may cause temporary errors.")).toBe("RateLimited")
    expect(failed("stream disconnected before completion: error sending request")).toBe("ConnectionLost")
  })

  it("a Reconnecting progress event names the failure when the run was stopped on it", () => {
    expect(
      kind({
        exitCode: null,
        signal: "SIGTERM",
        stdout: lines(started, {
          type: "error",
          message: "Reconnecting... 1/5 (unexpected status 503 Service Unavailable)"
        })
      })
    ).toBe("RateLimited")
    expect(
      kind({
        exitCode: null,
        signal: "SIGTERM",
        stdout: lines(started, {
          type: "error",
          message: "Reconnecting... waiting for network (Connection failed: error sending request)"
        })
      })
    ).toBe("ConnectionLost")
  })

  it("stderr noise alone is not a reason; a resume of an unknown thread is Unknown; a kill is Killed", () => {
    expect(
      kind({
        stderr:
          "Reading additional input from stdin...\nError: thread/resume: thread/resume failed: no rollout found for thread id x (code -32600)"
      })
    ).toBe("Unknown")
    expect(kind({ exitCode: null, signal: "SIGKILL" })).toBe("Killed")
    expect(kind({ stderr: "Missing optional dependency @openai/codex-linux-x64" })).toBe("NotInstalled")
  })

  it.prop(
    "never throws, and never lands without turn.completed",
    [streamLines(), text],
    ([stdout, stderr]) =>
      Result.isFailure(Codex.readOutcome({
        exitCode: 0,
        signal: null,
        stdout: stdout.filter((line) => !line.includes("turn.completed")).join("\n"),
        stderr
      }, place))
  )
})
