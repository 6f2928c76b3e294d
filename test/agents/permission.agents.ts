/**
 * Each permission rung a CLI backend says it honours, given to the real CLI: the flags the rung
 * maps to (README, "Permission rungs") are ones the CLI takes, so the turn at the mock answers
 * rather than ending in a usage error.
 */
import { describe, expect, it } from "@effect/vitest"
import { Settings } from "@fallback/core"
import * as MockProvider from "@fallback/testkit/MockProvider"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll } from "vitest"
import type { Cli } from "./expected.js"
import { accountFor, backendFor, key, keyVariable, placeFor } from "./places.js"

let mock: MockProvider.Running
const home = fs.mkdtempSync(path.join(path.resolve(import.meta.dirname, "../../.cache"), "agents-permission-"))
const clis: ReadonlyArray<Cli> = ["claude", "codex", "gemini", "opencode"]

beforeAll(async () => {
  process.env[keyVariable] = key
  mock = await MockProvider.start()
})
afterAll(async () => {
  await mock?.stop()
  if (process.env.FALLBACK_AGENTS_KEEP === undefined) fs.rmSync(home, { recursive: true, force: true })
})

const rungsAt = (cli: Cli): ReadonlyArray<Settings.Permission> =>
  Settings.permissions.filter((rung) =>
    Option.isNone(
      Settings.refusal(
        new Settings.Settings({ permission: rung }),
        backendFor(cli, { home, url: "http://127.0.0.1:1", faults: [] }, () => {}).capabilities
      )
    )
  )

// claude refuses bypassPermissions to root (its own rule, not a mapping's): as root that run is not one to judge flags by
const asRoot = process.getuid?.() === 0

describe.concurrent.each(clis)("%s", (cli) => {
  it.live.each(rungsAt(cli).filter((rung) => !(cli === "claude" && rung === "full" && asRoot)))(
    `${cli} takes the flags of the rung %s and answers`,
    (rung) =>
      Effect.gen(function*() {
        const folder = path.join(home, `${cli}-${rung}`)
        fs.mkdirSync(folder, { recursive: true })
        const backend = backendFor(cli, { home: folder, url: mock.url, faults: [] }, () => {})
        const events = yield* Effect.scoped(Effect.gen(function*() {
          const session = yield* backend.open(
            placeFor(cli, "a", "answer"),
            Option.some(accountFor(cli, "a", folder, mock.url)),
            new Settings.Settings({ permission: rung }),
            {}
          )
          return yield* Stream.runCollect(session.turn({ text: "say hi", history: [] }))
        }))
        expect(events.at(-1)?._tag).toBe("Result")
      }),
    240_000
  )
})

// As root, claude's own rule refuses bypassPermissions: a usage error, read as ArgumentsRefused (the
// turn fails there, says what was refused, and is no outage to walk past), not as a failed place.
describe("claude as root at full", () => {
  it.live.skipIf(!asRoot)(
    "is refused its arguments: ArgumentsRefused, quoting claude's own words",
    () =>
      Effect.gen(function*() {
        const folder = path.join(home, "claude-root-full")
        fs.mkdirSync(folder, { recursive: true })
        const backend = backendFor("claude", { home: folder, url: mock.url, faults: [] }, () => {})
        const failure = yield* Effect.scoped(Effect.gen(function*() {
          const session = yield* backend.open(
            placeFor("claude", "a", "answer"),
            Option.some(accountFor("claude", "a", folder, mock.url)),
            new Settings.Settings({ permission: "full" }),
            {}
          )
          return yield* Stream.runCollect(session.turn({ text: "say hi", history: [] }))
        })).pipe(Effect.flip)
        expect(failure._tag).toBe("ArgumentsRefused")
        expect(failure.message).toMatch(/cannot be used with root/)
      }),
    240_000
  )
})
