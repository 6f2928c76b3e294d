/**
 * The real CLIs as processes: a conversation resumed across an account move, a turn cut short
 * leaving no process behind, and NotInstalled for a binary that is not there and for npm's stub.
 */
import { describe, expect, it } from "@effect/vitest"
import { Claude, OpenCode } from "@fallback/backends"
import { Account, Failure, Settings } from "@fallback/core"
import * as MockProvider from "@fallback/testkit/MockProvider"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll } from "vitest"
import { stub } from "./clis.js"
import type { Cli } from "./expected.js"
import { accountFor, backendFor, key, keyVariable, modelFor, placeFor } from "./places.js"

let mock: MockProvider.Running
const home = fs.mkdtempSync(path.join(path.resolve(import.meta.dirname, "../../.cache"), "agents-run-"))
const clis: ReadonlyArray<Cli> = ["claude", "codex", "gemini", "opencode"]

beforeAll(async () => {
  process.env[keyVariable] = key
  process.env[`${keyVariable}_B`] = `${key}b`
  mock = await MockProvider.start()
  mock.script(clis.map((cli) => ({
    model: modelFor(cli, "retry").replace(/^mock\//, ""),
    fault: "unauthorized" as const,
    times: cli === "opencode" ? 2 : 1
  })))
})
afterAll(async () => {
  await mock?.stop()
  if (process.env.FALLBACK_AGENTS_KEEP === undefined) fs.rmSync(home, { recursive: true, force: true })
})

const prompt = (text: string) => ({ text, history: [] })

/** Processes still running (not zombies) whose command line holds `mark`. */
const running = (mark: string): ReadonlyArray<string> =>
  fs.readdirSync("/proc").filter((entry) => /^\d+$/.test(entry)).flatMap((pid) => {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
      const args = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ")
      return / Z /.test(stat.slice(stat.lastIndexOf(")"))) || !args.includes(mark)
        ? []
        : [`${pid} ${args.slice(0, 120)}`]
    } catch {
      return []
    }
  })

/** The second account of a CLI: its own config folder, or for opencode the same data folder and another key. */
const secondAccount = (cli: Cli, folder: string, url: string): Account.Account => {
  if (cli !== "opencode") return accountFor(cli, "b", folder, url)
  return new Account.Account({ name: "b", env: { MOCK_OPENAI_KEY: { fromEnv: `${keyVariable}_B` } } })
}

describe.concurrent.each(clis)("%s", (cli) => {
  it.live(`${cli}: an account move resumes the same conversation under the next account`, () =>
    Effect.gen(function*() {
      const folder = path.join(home, `${cli}-resume`)
      fs.mkdirSync(folder, { recursive: true })
      const backend = backendFor(cli, {
        home: folder,
        url: mock.url,
        faults: [],
        ...(cli === "opencode" ? { dataHome: path.join(folder, "data") } : {})
      }, () => {})
      const first = cli === "opencode"
        ? new Account.Account({ name: "a", env: { MOCK_OPENAI_KEY: { fromEnv: keyVariable } } })
        : accountFor(cli, "a", folder, mock.url)
      const id = yield* Effect.scoped(Effect.gen(function*() {
        const session = yield* backend.open(placeFor(cli, "a", "answer"), Option.some(first), Settings.plain, {})
        yield* Stream.runDrain(session.turn(prompt("remember the word teal")))
        return session.id
      }))
      expect(id).not.toBe("")
      const events = yield* Effect.scoped(Effect.gen(function*() {
        const session = yield* backend.open(
          placeFor(cli, "b", "answer"),
          Option.some(secondAccount(cli, folder, mock.url)),
          Settings.plain,
          { resume: id }
        )
        const events = yield* Stream.runCollect(session.turn(prompt("which word?")))
        expect(session.id).toBe(id)
        return events
      }))
      expect(events.at(-1)?._tag).toBe("Result")
      const started = events.find((event) => event._tag === "SessionStarted")
      expect(started).toMatchObject({ sessionId: id })
    }), 240_000)

  it.live(`${cli}: a failed turn taken again in the same session lands`, () =>
    Effect.gen(function*() {
      const folder = path.join(home, `${cli}-retry`)
      fs.mkdirSync(folder, { recursive: true })
      const backend = backendFor(cli, { home: folder, url: mock.url, faults: ["retry"] }, () => {})
      const [failed, landed] = yield* Effect.scoped(Effect.gen(function*() {
        const session = yield* backend.open(
          placeFor(cli, "a", "retry"),
          Option.some(accountFor(cli, "a", folder, mock.url)),
          Settings.plain,
          {}
        )
        const failed = yield* Effect.result(Stream.runDrain(session.turn(prompt("say hi"))))
        const landed = yield* Effect.result(Stream.runCollect(session.turn(prompt("say hi"))))
        return [failed, landed] as const
      }))
      expect(failed._tag).toBe("Failure")
      expect(landed._tag).toBe("Success")
    }), 240_000)

  it.live.each(["hang", "stall"] as const)(
    `${cli}: a turn cut short while the provider %ss leaves no process of it running`,
    (fault) =>
      Effect.gen(function*() {
        const folder = path.join(home, `${cli}-${fault}`)
        fs.mkdirSync(folder, { recursive: true })
        const backend = backendFor(cli, { home: folder, url: mock.url, faults: [fault] }, () => {})
        const model = modelFor(cli, fault)
        const fiber = yield* Effect.forkChild(Effect.scoped(Effect.gen(function*() {
          const session = yield* backend.open(
            placeFor(cli, "a", fault),
            Option.some(accountFor(cli, "a", folder, mock.url)),
            Settings.plain,
            {}
          )
          yield* Stream.runDrain(session.turn(prompt("say hi")))
        })))
        const asked = () => (mock.requests().byModel[model.replace(/^mock\//, "")] ?? 0) > 0
        for (let i = 0; i < 600 && !asked(); i++) yield* Effect.sleep(Duration.millis(100))
        expect(asked()).toBe(true)
        expect(running(model).length).toBeGreaterThan(0)
        const started = Date.now()
        yield* Fiber.interrupt(fiber)
        expect(Date.now() - started).toBeLessThan(10_000)
        yield* Effect.sleep(Duration.millis(300))
        expect(running(model)).toEqual([])
      }),
    240_000
  )
})

/** The process group of the running process whose command line holds `mark` and leads its group. */
const leaderOf = (mark: string): number | undefined =>
  fs.readdirSync("/proc").filter((entry) => /^\d+$/.test(entry)).map(Number).find((pid) => {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
      const group = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2])
      return group === pid && fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(mark)
    } catch {
      return false
    }
  })

describe.concurrent.each(clis)("%s killed", (cli) => {
  it.live(
    `${cli}: killed from outside (SIGKILL to its group, as an out-of-memory kill) is Killed naming the signal`,
    () =>
      Effect.gen(function*() {
        const folder = path.join(home, `${cli}-killed`)
        fs.mkdirSync(folder, { recursive: true })
        const backend = backendFor(cli, { home: folder, url: mock.url, faults: ["killed"] }, () => {})
        const model = modelFor(cli, "killed")
        const fiber = yield* Effect.forkChild(Effect.scoped(Effect.gen(function*() {
          const session = yield* backend.open(
            placeFor(cli, "a", "killed"),
            Option.some(accountFor(cli, "a", folder, mock.url)),
            Settings.plain,
            {}
          )
          return yield* Effect.flip(Stream.runDrain(session.turn(prompt("say hi"))))
        })))
        const asked = () => (mock.requests().byModel[model.replace(/^mock\//, "")] ?? 0) > 0
        for (let i = 0; i < 600 && !asked(); i++) yield* Effect.sleep(Duration.millis(100))
        const leader = leaderOf(model)
        expect(leader).toBeDefined()
        process.kill(-leader!, "SIGKILL")
        const failure = yield* Fiber.join(fiber).pipe(Effect.timeout(Duration.seconds(20)))
        expect(failure).toMatchObject({ _tag: "Killed", signal: "SIGKILL" })
        expect(running(model)).toEqual([])
      }),
    240_000
  )
})

describe("not installed", () => {
  const place = placeFor("claude", "a", "answer")

  it.live("a binary that is not there is NotInstalled with the npm line", () =>
    Effect.gen(function*() {
      const failure = yield* Effect.scoped(Effect.gen(function*() {
        const session = yield* Claude.make({ bin: path.join(home, "no-such-claude") }).open(
          place,
          Option.none(),
          Settings.plain,
          {}
        )
        return yield* Effect.flip(Stream.runDrain(session.turn(prompt("say hi"))))
      }))
      expect(failure).toBeInstanceOf(Failure.NotInstalled)
      expect(failure).toMatchObject({ install: "npm install -g @anthropic-ai/claude-code" })
    }))

  it.live.each(["claude", "opencode"] as const)(
    "%s installed with its postinstall skipped (npm's stub) is NotInstalled",
    (cli) =>
      Effect.gen(function*() {
        expect(fs.readFileSync(stub(cli), "utf8")).toMatch(/postinstall/)
        const backend = cli === "claude"
          ? Claude.make({ bin: stub("claude") })
          : OpenCode.make({ bin: stub("opencode") })
        const failure = yield* Effect.scoped(Effect.gen(function*() {
          const session = yield* backend.open(placeFor(cli, "a", "answer"), Option.none(), Settings.plain, {})
          return yield* Effect.flip(Stream.runDrain(session.turn(prompt("say hi"))))
        }))
        expect(failure._tag).toBe("NotInstalled")
        expect(failure.said).toMatch(/postinstall|not installed/)
        expect(failure.message).toContain(cli === "claude" ? "@anthropic-ai/claude-code" : "opencode-ai")
      })
  )
})
