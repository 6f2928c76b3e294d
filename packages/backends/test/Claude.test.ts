import { describe, expect, it } from "@effect/vitest"
import * as Claude from "@fallback/backends/Claude"
import * as Failure from "@fallback/core/Failure"
import * as Place from "@fallback/core/Place"
import * as Settings from "@fallback/core/Settings"
import * as Duration from "effect/Duration"
import * as Result from "effect/Result"
import { exitStatus, streamLines, text } from "./outputs.js"

const place = new Place.Place({ cli: "claude", account: "work", model: "claude-sonnet-4-5" })
const lines = (...events: ReadonlyArray<object>) => events.map((event) => JSON.stringify(event)).join("\n")
const init = { type: "system", subtype: "init", session_id: "s-1", model: "claude-sonnet-4-5" }
const judged = (finished: Partial<Parameters<typeof Claude.readOutcome>[0]>) =>
  Claude.readOutcome({ exitCode: 1, signal: null, stdout: "", stderr: "", ...finished }, place)
const kind = (finished: Partial<Parameters<typeof Claude.readOutcome>[0]>) =>
  Result.match(judged(finished), { onFailure: (failure) => failure._tag, onSuccess: () => "answer" })

describe("Claude.argv", () => {
  it("one turn: print mode, the model, stream-json with --verbose and each piece as it comes, and the prompt as the last argument after --", () => {
    const argv = Claude.argv({
      prompt: "--dangerously-skip-permissions; rm -rf ~",
      model: "claude-opus-5",
      resume: undefined,
      settings: Settings.plain
    })
    expect(argv).toEqual([
      "-p",
      "--model",
      "claude-opus-5",
      "--output-format",
      "stream-json",
      "--verbose",
      "--include-partial-messages",
      "--",
      "--dangerously-skip-permissions; rm -rf ~"
    ])
  })

  it("resumes by id and maps effort, permission and web search off to its flags", () => {
    const settings = new Settings.Settings({ effort: "high", permission: "read-only", webSearch: false })
    const argv = Claude.argv({ prompt: "go on", model: "m", resume: "s-1", settings })
    expect(argv.slice(argv.indexOf("--resume"), argv.indexOf("--resume") + 2)).toEqual(["--resume", "s-1"])
    expect(argv).toContain("--effort")
    expect(argv[argv.indexOf("--permission-mode") + 1]).toBe("plan")
    expect(argv[argv.indexOf("--disallowedTools") + 1]).toBe("WebSearch")
    expect(argv.at(-1)).toBe("go on")
  })
})

describe("Claude.readOutcome", () => {
  it("lands only on result with is_error false, with the session, the text and the usage", () => {
    const outcome = judged({
      exitCode: 0,
      stdout: lines(
        init,
        { type: "assistant", message: { content: [{ type: "text", text: "hi" }] } },
        {
          type: "result",
          subtype: "success",
          is_error: false,
          result: "hi",
          session_id: "s-1",
          usage: { input_tokens: 5, output_tokens: 2 }
        }
      )
    })
    expect(Result.isSuccess(outcome)).toBe(true)
    const events = Result.getOrThrow(outcome).events
    expect(events.map((event) => event._tag)).toEqual(["SessionStarted", "Text", "Result"])
    expect(events.at(-1)).toMatchObject({ text: "hi", usage: { input: 5, output: 2 } })
  })

  it("exit 0 without a result is not a turn that landed", () => {
    expect(kind({ exitCode: 0, stdout: lines(init) })).toBe("Unknown")
  })

  it("an answer that talks about 429 and rate limits is still an answer", () => {
    expect(kind({
      exitCode: 0,
      stdout: lines(init, {
        type: "result",
        is_error: false,
        result: "HTTP 429 means rate limited; quota exceeded",
        session_id: "s-1"
      })
    })).toBe("answer")
  })

  it("an API error's status decides the kind: 429, 529, 401, 404, and 400 in the vendor's words", () => {
    const api = (status: number, result: string) =>
      kind({
        stdout: lines(init, { type: "result", subtype: "success", is_error: true, api_error_status: status, result })
      })
    expect(api(429, "API Error: 429 rate_limit_error")).toBe("RateLimited")
    expect(api(529, "API Error: 529 Overloaded")).toBe("RateLimited")
    expect(api(401, "API Error: 401 authentication_error")).toBe("AuthRefused")
    expect(api(404, "API Error: 404 not_found_error model: x")).toBe("ModelNotFound")
    expect(api(400, "API Error: 400 prompt is too long: 210000 tokens > 200000 maximum")).toBe("ContextTooLong")
    expect(api(400, "Your credit balance is too low to access the Anthropic API")).toBe("QuotaExhausted")
  })

  it("a retry in progress already names the failure, even though the run was stopped for it", () => {
    const failure = Result.flip(judged({
      exitCode: 143,
      stdout: lines(init, {
        type: "system",
        subtype: "api_retry",
        attempt: 1,
        max_retries: 10,
        retry_delay_ms: 30000,
        error_status: 429,
        error: "rate_limit"
      })
    }))
    expect(Result.getOrThrow(failure)._tag).toBe("RateLimited")
  })

  it("a kill is Killed naming the signal; 143 with no result is its trapped SIGTERM", () => {
    expect(Result.getOrThrow(Result.flip(judged({ exitCode: null, signal: "SIGKILL", stdout: lines(init) }))))
      .toMatchObject({ _tag: "Killed", signal: "SIGKILL" })
    expect(Result.getOrThrow(Result.flip(judged({ exitCode: 143, stdout: lines(init) })))).toMatchObject({
      _tag: "Killed",
      signal: "SIGTERM"
    })
  })

  it("the stub a skipped postinstall leaves is NotInstalled with the npm line", () => {
    const failure = Result.getOrThrow(
      Result.flip(judged({ stderr: "Error: claude native binary not installed.\n\nEither postinstall did not run" }))
    )
    expect(failure).toMatchObject({ _tag: "NotInstalled", install: Claude.install })
  })

  it("an unknown session to resume is an Unknown failure quoting the CLI", () => {
    const failure = Result.getOrThrow(Result.flip(judged({
      stdout: lines({
        type: "result",
        subtype: "error_during_execution",
        is_error: true,
        errors: ["No conversation found with session ID: x"]
      }),
      stderr: "No conversation found with session ID: x"
    })))
    expect(failure._tag).toBe("Unknown")
    expect(failure.said).toContain("No conversation found")
  })

  it("a key the CLI echoes back is masked in what the failure says", () => {
    const failure = Result.getOrThrow(Result.flip(judged({
      stdout: lines({
        type: "result",
        is_error: true,
        api_error_status: 401,
        result: "invalid x-api-key sk-ant-api03-abcdefghijklmnopqrstuvwxyz"
      })
    })))
    expect(failure.said).not.toContain("abcdefghijklmnop")
  })

  it("a rate limit that says how long to wait carries it", () => {
    const failure = Result.getOrThrow(Result.flip(judged({
      stdout: lines({ type: "result", is_error: true, api_error_status: 429, result: "rate limited; retry-after: 30" })
    })))
    expect(failure).toBeInstanceOf(Failure.RateLimited)
    expect((failure as Failure.RateLimited).retryAfter).toEqual(Duration.seconds(30))
  })

  it.prop(
    "never throws, and never lands without its result line",
    [streamLines(JSON.stringify(init)), text, exitStatus],
    ([stdout, stderr, exitCode]) => {
      const outcome = Claude.readOutcome({ exitCode, signal: null, stdout: stdout.join("\n"), stderr }, place)
      return Result.isFailure(outcome) || stdout.some((line) => line.includes("result"))
    }
  )
})
