/**
 * Issue 23: a CLI that prints its result and then stays running (an MCP server it started, a
 * grandchild holding its stdout, a CLI that hangs on exit) does not hold the turn. Once its result
 * says the turn succeeded it has `landingGrace` to exit; then its whole group is ended and the turn
 * lands with the answer it printed. A result that says failure is judged as before. Real child
 * processes; bound by the TestClock or by counts of polls, never by a figure of time.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Claude from "@fallback/backends/Claude"
import * as Codex from "@fallback/backends/Codex"
import * as Gemini from "@fallback/backends/Gemini"
import * as OpenCode from "@fallback/backends/OpenCode"
import type * as Backend from "@fallback/core/Backend"
import * as Place from "@fallback/core/Place"
import * as Settings from "@fallback/core/Settings"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/testing/TestClock"
import * as fs from "node:fs"
import * as path from "node:path"
import { landingGrace } from "../src/internal/cli/backend.js"
import { alive, executable, folder } from "./fakes.js"

/**
 * A fake CLI: starts a grandchild in its group that ignores SIGTERM (holding the CLI's stdout in
 * `holder`), records both pids, prints FAKE_LINES and stays running; in `stubborn` it ignores
 * SIGTERM itself, in `traps` it exits 143 on it as claude does.
 */
const lingering = (dir: string, name: string) =>
  executable(
    dir,
    name,
    `const { spawn } = require("node:child_process"), fs = require("node:fs"), path = require("node:path")
const dir = process.env.FAKE_DIR, mode = process.env.FAKE_MODE
const grandchild = spawn(process.execPath, ["-e", "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)"], {
  stdio: mode === "holder" ? ["ignore", "inherit", "inherit"] : "ignore"
})
if (mode === "stubborn") process.on("SIGTERM", () => {})
if (mode === "traps") process.on("SIGTERM", () => process.exit(143))
fs.writeFileSync(path.join(dir, "pids.tmp"), JSON.stringify({ cli: process.pid, grandchild: grandchild.pid }))
fs.renameSync(path.join(dir, "pids.tmp"), path.join(dir, "pids"))
for (const line of JSON.parse(process.env.FAKE_LINES)) process.stdout.write(JSON.stringify(line) + "\\n")
setInterval(() => {}, 1000)`
  )

const pause = (ms: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, ms)))

/** Polls (by count) until `ok`; true once it holds. */
const until = (ok: () => boolean, polls = 1000) =>
  Effect.gen(function*() {
    for (let i = 0; i < polls && !ok(); i++) yield* pause(20)
    return ok()
  })

const pidsOf = (dir: string) =>
  Effect.gen(function*() {
    expect(yield* until(() => fs.existsSync(path.join(dir, "pids")))).toBe(true)
    return JSON.parse(fs.readFileSync(path.join(dir, "pids"), "utf8")) as { cli: number; grandchild: number }
  })

/** Everything gone: the CLI, its grandchild and its process group. */
const allGone = (pids: { cli: number; grandchild: number }) =>
  until(() => {
    if (alive(pids.cli) || alive(pids.grandchild)) return false
    try {
      process.kill(-pids.cli, 0)
      return false
    } catch {
      return true
    }
  })

const cleanUp = (dir: string) => {
  const file = path.join(dir, "pids")
  if (!fs.existsSync(file)) return
  const { cli, grandchild } = JSON.parse(fs.readFileSync(file, "utf8"))
  for (const pid of [grandchild, cli, -cli]) {
    try {
      process.kill(pid, "SIGKILL")
    } catch {
      // gone, as it should be
    }
  }
}

const claudeLines = (result: object) => [
  { type: "system", subtype: "init", session_id: "s-1" },
  { type: "assistant", message: { content: [{ type: "text", text: "the answer" }] } },
  { type: "result", session_id: "s-1", usage: { input_tokens: 1, output_tokens: 2 }, ...result }
]
const succeeded = claudeLines({ subtype: "success", is_error: false, result: "the answer" })
const rateLimited = claudeLines({ subtype: "success", is_error: true, api_error_status: 429, result: "Rate limited" })

interface Case {
  readonly cli: "claude" | "codex" | "gemini" | "opencode"
  readonly model: string
  readonly make: (options: { bin: string; cwd: string; env: Record<string, string>; grace: Duration.Duration }) => {
    readonly open: Backend.Backend["open"]
  }
  readonly lines: ReadonlyArray<object>
}

const claude: Case = { cli: "claude", model: "claude-sonnet-4-5", make: Claude.make, lines: succeeded }

const others: ReadonlyArray<Case> = [
  {
    cli: "codex",
    model: "gpt-5.5",
    make: Codex.make,
    lines: [
      { type: "thread.started", thread_id: "t-1" },
      { type: "turn.started" },
      { type: "item.completed", item: { type: "agent_message", text: "the answer" } },
      { type: "turn.completed", usage: { input_tokens: 1, output_tokens: 2 } }
    ]
  },
  {
    cli: "gemini",
    model: "gemini-2.5-flash",
    make: (options) => Gemini.make({ ...options, home: path.join(options.cwd, "gemini-home") }),
    lines: [
      { type: "init", session_id: "g-1" },
      { type: "message", role: "assistant", content: "the answer", delta: true },
      { type: "result", status: "success", stats: { input_tokens: 1, output_tokens: 2 } }
    ]
  },
  {
    cli: "opencode",
    model: "mock/mock-model",
    make: OpenCode.make,
    lines: [
      { type: "step_start", sessionID: "ses_1" },
      { type: "step_finish", sessionID: "ses_1", part: { reason: "tool-calls", tokens: { input: 1, output: 1 } } },
      { type: "step_start", sessionID: "ses_1" },
      { type: "text", sessionID: "ses_1", part: { text: "the answer" } },
      { type: "step_finish", sessionID: "ses_1", part: { reason: "stop", tokens: { input: 1, output: 2 } } }
    ]
  }
]

const turnOf = (at: Case, mode: string, lines: ReadonlyArray<object> = at.lines) =>
  Effect.gen(function*() {
    const dir = folder()
    yield* Effect.addFinalizer(() => Effect.sync(() => cleanUp(dir)))
    const backend = at.make({
      bin: lingering(dir, at.cli),
      cwd: dir,
      env: { FAKE_DIR: dir, FAKE_MODE: mode, FAKE_LINES: JSON.stringify(lines) },
      grace: Duration.millis(300)
    })
    const place = new Place.Place({ cli: at.cli, model: at.model })
    const session = yield* backend.open(place, Option.none(), Settings.plain, {})
    return { dir, turn: session.turn({ text: "hello", history: [] }) }
  })

const collected = (turn: Stream.Stream<Backend.Event, unknown>) => Stream.runCollect(turn)

/**
 * The TestClock, counting the sleeps started on it by what runs `within` it: v4's TestClock does
 * not list its pending sleeps, and a test must not move the clock before the grace has started.
 */
const countingSleeps = Effect.gen(function*() {
  const clock = yield* Clock.Clock
  let started = 0
  const counting: Clock.Clock = {
    ...clock,
    sleep: (duration) =>
      Effect.suspend(() => {
        started += 1
        return clock.sleep(duration)
      })
  }
  return {
    started: () => started,
    within: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.provideService(effect, Clock.Clock, counting)
  }
})

describe("a CLI that lingers after its result", () => {
  it.live.each(["hang", "stubborn", "traps", "holder"])(
    "claude prints a success result and stays running (%s): the turn lands with the answer, its group is gone",
    (mode) =>
      Effect.gen(function*() {
        const { dir, turn } = yield* turnOf(claude, mode)
        const events = yield* collected(turn)
        expect(events.at(-1)).toMatchObject({ _tag: "Result", text: "the answer", usage: { input: 1, output: 2 } })
        expect(yield* allGone(yield* pidsOf(dir))).toBe(true)
      })
  )

  it.live.each(others.map((at) => [at.cli, at] as const))(
    "%s prints its success marker and stays running: the turn lands with the answer, its group is gone",
    ([, at]) =>
      Effect.gen(function*() {
        const { dir, turn } = yield* turnOf(at, "stubborn")
        const events = yield* collected(turn)
        expect(events.at(-1)).toMatchObject({ _tag: "Result", text: "the answer" })
        expect(yield* allGone(yield* pidsOf(dir))).toBe(true)
      })
  )

  it.effect("the CLI has the whole landing grace to exit by itself, and is ended as it runs out", () =>
    Effect.gen(function*() {
      const { dir, turn } = yield* turnOf(claude, "hang")
      const sleeps = yield* countingSleeps
      const fiber = yield* Effect.forkChild(sleeps.within(collected(turn)))
      const pids = yield* pidsOf(dir)
      // the grace starts on the Effect clock once the result line is read
      let waited = 0
      while (sleeps.started() === 0 && waited++ < 1000) yield* pause(20)
      yield* TestClock.adjust(Duration.subtract(landingGrace, Duration.millis(1)))
      yield* pause(100)
      expect(alive(pids.cli)).toBe(true)
      expect(fiber.pollUnsafe()).toBeUndefined()
      yield* TestClock.adjust(Duration.millis(1))
      const events = yield* Fiber.join(fiber)
      expect(events.at(-1)).toMatchObject({ _tag: "Result", text: "the answer" })
      expect(yield* allGone(pids)).toBe(true)
    }))

  it.effect("claude's result that says failure (a 429), then lingering: after the grace its group is ended and the turn fails as the result says", () =>
    Effect.gen(function*() {
      const { dir, turn } = yield* turnOf({ ...claude, lines: rateLimited }, "hang")
      const sleeps = yield* countingSleeps
      const fiber = yield* Effect.forkChild(sleeps.within(Effect.flip(collected(turn))))
      const pids = yield* pidsOf(dir)
      let waited = 0
      while (sleeps.started() === 0 && waited++ < 1000) yield* pause(20)
      yield* TestClock.adjust(landingGrace)
      const failure = yield* Fiber.join(fiber)
      expect(failure).toMatchObject({ _tag: "RateLimited" })
      expect(yield* allGone(pids)).toBe(true)
    }))

  const unlanded: ReadonlyArray<readonly [string, Case]> = [
    ["opencode's step that ends to call tools", { ...others[2]!, lines: others[2]!.lines.slice(0, 2) }]
  ]
  it.effect.each(unlanded)(
    "%s is not landed: the CLI is left to the turn's deadline, then its group is ended",
    ([, at]) =>
      Effect.gen(function*() {
        const { dir, turn } = yield* turnOf(at, "hang")
        const fiber = yield* Effect.forkChild(Effect.result(collected(turn)))
        const pids = yield* pidsOf(dir)
        yield* pause(500)
        yield* TestClock.adjust(Duration.times(landingGrace, 10))
        yield* pause(200)
        expect(alive(pids.cli)).toBe(true)
        expect(fiber.pollUnsafe()).toBeUndefined()
        yield* Fiber.interrupt(fiber)
        expect(yield* allGone(pids)).toBe(true)
      })
  )
})
