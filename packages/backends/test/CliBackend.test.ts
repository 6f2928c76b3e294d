import { describe, expect, it } from "@effect/vitest"
import * as Claude from "@fallback/backends/Claude"
import * as Gemini from "@fallback/backends/Gemini"
import * as Account from "@fallback/core/Account"
import * as Failure from "@fallback/core/Failure"
import * as Notice from "@fallback/core/Notice"
import * as Place from "@fallback/core/Place"
import * as Settings from "@fallback/core/Settings"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as path from "node:path"
import { alive, executable, folder } from "./fakes.js"

/** A fake claude: records how it was run, keeps its transcript where claude does, and plays FAKE_MODE. */
const fakeClaude = (dir: string) =>
  executable(
    dir,
    "claude",
    `const fs = require("node:fs"), path = require("node:path")
const args = process.argv.slice(2)
fs.appendFileSync(path.join(process.env.FAKE_DIR, "runs.jsonl"), JSON.stringify({ args, env: process.env }) + "\\n")
const id = args.includes("--resume") ? args[args.indexOf("--resume") + 1] : "sess-" + process.pid
const transcript = path.join(process.env.CLAUDE_CONFIG_DIR ?? "/nonexistent", "projects", "-work", id + ".jsonl")
const carried = fs.existsSync(transcript)
fs.mkdirSync(path.dirname(transcript), { recursive: true })
fs.appendFileSync(transcript, "turn\\n")
const out = (event) => process.stdout.write(JSON.stringify(event) + "\\n")
out({ type: "system", subtype: "init", session_id: id })
if (process.env.FAKE_MODE === "retry") {
  out({ type: "system", subtype: "api_retry", attempt: 1, max_retries: 10, retry_delay_ms: 60000, error_status: 429, error: "rate_limit" })
  process.on("SIGTERM", () => process.exit(143))
  setInterval(() => {}, 1000)
} else if (process.env.FAKE_MODE === "lost" && args.includes("--resume")) {
  process.stderr.write("No conversation found with session ID: " + id + "\\n")
  out({ type: "result", subtype: "error_during_execution", is_error: true, errors: ["No conversation found with session ID: " + id] })
  process.exitCode = 1
} else if (process.env.FAKE_MODE === "lost") {
  out({ type: "assistant", message: { content: [{ type: "text", text: args.at(-1) }] } })
  out({ type: "result", subtype: "success", is_error: false, result: args.at(-1), session_id: id, usage: { input_tokens: 1, output_tokens: 1 } })
} else if (process.env.FAKE_MODE === "hang") {
  const grandchild = require("node:child_process").spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" })
  fs.writeFileSync(path.join(process.env.FAKE_DIR, "grandchild"), String(grandchild.pid))
  setInterval(() => {}, 1000)
} else {
  out({ type: "assistant", message: { content: [{ type: "text", text: carried ? "carried" : "fresh" }] } })
  out({ type: "result", subtype: "success", is_error: false, result: carried ? "carried" : "fresh", session_id: id, usage: { input_tokens: 1, output_tokens: 1 } })
}`
  )

const runs = (dir: string): ReadonlyArray<{ args: ReadonlyArray<string>; env: Record<string, string> }> =>
  fs.readFileSync(path.join(dir, "runs.jsonl"), "utf8").trim().split("\n").map((line) => JSON.parse(line))

const setup = (mode = "answer") => {
  const dir = folder()
  const backend = Claude.make({
    bin: fakeClaude(dir),
    cwd: dir,
    env: { FAKE_DIR: dir, FAKE_MODE: mode },
    grace: Duration.millis(300)
  })
  const account = (name: string) =>
    new Account.Account({
      name,
      configDir: path.join(dir, name),
      env: { ANTHROPIC_API_KEY: { fromEnv: "FALLBACK_TEST_CLAUDE_KEY" } }
    })
  const place = (name: string) => new Place.Place({ cli: "claude", account: name, model: "claude-sonnet-4-5" })
  return { dir, backend, account, place }
}

const prompt = (text: string) => ({ text, history: [] })

describe("a CLI backend, run with fake executables", () => {
  it.live("streams the session, the text and the result, and resumes the next turn by the id it read", () =>
    Effect.gen(function*() {
      process.env.FALLBACK_TEST_CLAUDE_KEY = "sk-ant-api03-testtesttesttesttest"
      const { account, backend, dir, place } = setup()
      const session = yield* backend.open(place("a"), Option.some(account("a")), Settings.plain, {})
      expect(session.id).toBe("")
      const first = yield* Stream.runCollect(session.turn(prompt("hello")))
      expect(first.map((event) => event._tag)).toEqual(["SessionStarted", "Text", "Result"])
      const id = (first[0] as { sessionId: string }).sessionId
      expect(session.id).toBe(id)
      yield* Stream.runDrain(session.turn(prompt("again")))
      const [one, two] = runs(dir)
      expect(one!.args).not.toContain("--resume")
      expect(two!.args.slice(two!.args.indexOf("--resume"), two!.args.indexOf("--resume") + 2)).toEqual([
        "--resume",
        id
      ])
      expect(two!.args.at(-1)).toBe("again")
    }))

  it.live("the child gets only what it needs: basics, quiet settings, the account's folder and key, nothing else", () =>
    Effect.gen(function*() {
      process.env.FALLBACK_TEST_CLAUDE_KEY = "sk-ant-api03-testtesttesttesttest"
      process.env.FALLBACK_TEST_UNRELATED = "not for the child"
      const { account, backend, dir, place } = setup()
      const session = yield* backend.open(place("a"), Option.some(account("a")), Settings.plain, {})
      yield* Stream.runDrain(session.turn(prompt("hello")))
      const env = runs(dir)[0]!.env
      expect(env.ANTHROPIC_API_KEY).toBe("sk-ant-api03-testtesttesttesttest")
      expect(env.CLAUDE_CONFIG_DIR).toBe(path.join(dir, "a"))
      expect(env.CLAUDE_CODE_MAX_RETRIES).toBe("0")
      expect(env.FALLBACK_TEST_UNRELATED).toBeUndefined()
      expect(env.FALLBACK_TEST_CLAUDE_KEY).toBeUndefined()
    }))

  it.live("an account whose key variable is not set is refused at open, naming the variable, not a value", () =>
    Effect.gen(function*() {
      delete process.env.FALLBACK_TEST_CLAUDE_KEY
      const { account, backend, place } = setup()
      const failure = yield* Effect.flip(backend.open(place("a"), Option.some(account("a")), Settings.plain, {}))
      expect(failure._tag).toBe("AuthRefused")
      expect(failure.said).toContain("FALLBACK_TEST_CLAUDE_KEY")
    }))

  it.live("an account move carries the transcript to the new account's folder, so the same conversation goes on", () =>
    Effect.gen(function*() {
      process.env.FALLBACK_TEST_CLAUDE_KEY = "sk-ant-api03-testtesttesttesttest"
      const { account, backend, place } = setup()
      const atA = yield* backend.open(place("a"), Option.some(account("a")), Settings.plain, {})
      yield* Stream.runDrain(atA.turn(prompt("hello")))
      const atB = yield* backend.open(place("b"), Option.some(account("b")), Settings.plain, { resume: atA.id })
      const events = yield* Stream.runCollect(atB.turn(prompt("go on")))
      expect(events.at(-1)).toMatchObject({ _tag: "Result", text: "carried" })
      expect(atB.id).toBe(atA.id)
    }))

  it.live("a resume that finds no session opens a fresh one there, carrying the conversation as text, with a notice", () =>
    Effect.gen(function*() {
      process.env.FALLBACK_TEST_CLAUDE_KEY = "sk-ant-api03-testtesttesttesttest"
      const { account, backend, dir, place } = setup("lost")
      const atA = yield* backend.open(place("a"), Option.some(account("a")), Settings.plain, {})
      yield* Stream.runDrain(atA.turn(prompt("hello")))
      const heard: Array<Notice.Notice> = []
      const atB = yield* backend.open(place("b"), Option.some(account("b")), Settings.plain, { resume: "gone" })
      const events = yield* Stream.runCollect(atB.turn(prompt("go on"))).pipe(
        Effect.provideService(Notice.Notices, {
          publish: (notice) => Effect.sync(() => void heard.push(notice)),
          watch: Effect.die("unwatched")
        })
      )
      expect(events.at(-1)).toMatchObject({ _tag: "Result" })
      expect(heard.map(Notice.format)).toEqual([
        "claude@b has no session gone to resume; opening a fresh one there, with the conversation carried as text"
      ])
      const [, lost, fresh] = runs(dir)
      expect(lost!.args).toContain("--resume")
      expect(fresh!.args).not.toContain("--resume")
      expect(fresh!.args.at(-1)).toBe("go on")
      // Resuming A's own session, lost at B, carries A's exchanges as text.
      const atB2 = yield* backend.open(place("b"), Option.some(account("b")), Settings.plain, { resume: atA.id })
      const carried = yield* Stream.runCollect(atB2.turn(prompt("and then")))
      expect(carried.at(-1)).toMatchObject({ _tag: "Result" })
      expect(runs(dir).at(-1)!.args.at(-1)).toBe(
        "The conversation so far, carried over from a session that could not be resumed here:\nUser: hello\nAssistant: hello\n\nand then"
      )
    }))

  it.live("a retry in progress ends the turn at once with the kind it names, instead of waiting out the CLI's backoff", () =>
    Effect.gen(function*() {
      process.env.FALLBACK_TEST_CLAUDE_KEY = "sk-ant-api03-testtesttesttesttest"
      const { account, backend, place } = setup("retry")
      const session = yield* backend.open(place("a"), Option.some(account("a")), Settings.plain, {})
      // The stand-in never ends by itself: a turn that waited out its backoff would never end.
      const failure = yield* Effect.flip(Stream.runDrain(session.turn(prompt("hello"))))
      expect(failure._tag).toBe("RateLimited")
    }))

  it.live("a deadline on the turn kills the whole process group: nothing it started survives", () =>
    Effect.gen(function*() {
      process.env.FALLBACK_TEST_CLAUDE_KEY = "sk-ant-api03-testtesttesttesttest"
      const { account, backend, dir, place } = setup("hang")
      const session = yield* backend.open(place("a"), Option.some(account("a")), Settings.plain, {})
      const ended = yield* Stream.runDrain(session.turn(prompt("hello"))).pipe(
        Effect.timeout(Duration.seconds(3)),
        Effect.result
      )
      expect(ended._tag).toBe("Failure")
      const grandchild = Number(fs.readFileSync(path.join(dir, "grandchild"), "utf8"))
      yield* Effect.sleep(Duration.millis(200))
      expect(alive(grandchild)).toBe(false)
    }))

  it.live("a binary that is not there, or npm's stub left by a skipped postinstall, is NotInstalled with the npm line", () =>
    Effect.gen(function*() {
      const dir = folder()
      const missing = Claude.make({ bin: path.join(dir, "no-claude-here") })
      const place = new Place.Place({ cli: "claude", model: "claude-sonnet-4-5" })
      const session = yield* missing.open(place, Option.none(), Settings.plain, {})
      const notThere = yield* Effect.flip(Stream.runDrain(session.turn(prompt("hello"))))
      expect(notThere).toMatchObject({ _tag: "NotInstalled", install: Claude.install })
      const stub = path.join(dir, "claude.exe")
      fs.writeFileSync(stub, "echo \"Error: claude native binary not installed.\" >&2\nexit 1\n", { mode: 0o755 })
      const stubbed = yield* Claude.make({ bin: stub }).open(place, Option.none(), Settings.plain, {})
      const broken = yield* Effect.flip(Stream.runDrain(stubbed.turn(prompt("hello"))))
      expect(broken).toBeInstanceOf(Failure.NotInstalled)
      expect(broken.message).toContain("npm install -g @anthropic-ai/claude-code")
    }))

  it.live("gemini keeps no session whose first turn failed: the retry starts afresh and names its session once it lands", () =>
    Effect.gen(function*() {
      const dir = folder()
      const bin = executable(
        dir,
        "gemini",
        `const fs = require("node:fs"), path = require("node:path")
const runs = path.join(${JSON.stringify(dir)}, "runs.jsonl")
fs.appendFileSync(runs, JSON.stringify(process.argv.slice(2)) + "\\n")
const first = fs.readFileSync(runs, "utf8").trim().split("\\n").length === 1
const out = (event) => process.stdout.write(JSON.stringify(event) + "\\n")
out({ type: "init", session_id: first ? "failed-session" : "good-session" })
if (first) {
  out({ type: "result", status: "error", error: { type: "unknown", message: "[API Error: Resource has been exhausted]" } })
  process.exitCode = 173
} else {
  out({ type: "message", role: "assistant", content: "hi", delta: true })
  out({ type: "result", status: "success", stats: {} })
}`
      )
      const place = new Place.Place({ cli: "gemini", model: "gemini-2.5-flash" })
      const session = yield* Gemini.make({ bin, cwd: dir }).open(place, Option.none(), Settings.plain, {})
      const failed = yield* Effect.flip(Stream.runDrain(session.turn(prompt("hello"))))
      expect(failed._tag).toBe("RateLimited")
      expect(session.id).toBe("")
      const events = yield* Stream.runCollect(session.turn(prompt("hello")))
      const [, second] = fs.readFileSync(path.join(dir, "runs.jsonl"), "utf8").trim().split("\n").map((line) =>
        JSON.parse(line)
      )
      expect(second).not.toContain("--resume")
      expect(events.map((event) => event._tag)).toEqual(["Text", "SessionStarted", "Result"])
      expect(session.id).toBe("good-session")
    }))
})
