/**
 * Real claude against the mock answering with thinking first (`fault-think`), run with the flags
 * fallback gives it (`--include-partial-messages` among them): read as thinking, then the text,
 * and recorded as test/fixtures/agents/claude/thinking.json for the ordinary run to replay
 * (packages/backends/test/Thinking.test.ts).
 */
import { describe, expect, it } from "@effect/vitest"
import type { Cli as CliOptions } from "@fallback/backends"
import { Backend, Place, Settings } from "@fallback/core"
import * as MockProvider from "@fallback/testkit/MockProvider"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll } from "vitest"
import { pinned } from "./clis.js"
import { accountFor, backendFor, key, keyVariable, modelFor, placeFor } from "./places.js"
import * as Recording from "./recording.js"

let mock: MockProvider.Running
const home = fs.mkdtempSync(path.join(path.resolve(import.meta.dirname, "../../.cache"), "agents-run-"))
const text = "Use a 30 s first-byte limit and count thinking as a sign of life."
const thinking = "The user asks how long to wait for a first byte. Thinking is output too: a model that " +
  "reasons for a minute is alive, not silent. So the limit is met by the first thinking piece. Answering now."

beforeAll(async () => {
  process.env[keyVariable] = key
  mock = await MockProvider.start({ text })
  mock.script([
    { fault: "think", model: modelFor("claude", "think"), thinking },
    { fault: "think", model: `${modelFor("claude", "think")}-slow`, thinking, pause: 1000 }
  ])
})
afterAll(async () => {
  await mock?.stop()
  if (process.env.FALLBACK_AGENTS_KEEP === undefined) fs.rmSync(home, { recursive: true, force: true })
})

describe("claude", () => {
  it.live(
    "claude × think: the thinking is read as thinking, piece by piece, before the text; recorded",
    () =>
      Effect.gen(function*() {
        const folder = path.join(home, "claude-think")
        fs.mkdirSync(folder, { recursive: true })
        let finished: CliOptions.Finished | undefined
        const backend = backendFor("claude", { home: folder, url: mock.url, faults: [] }, (run) => {
          finished = run
        })
        const place = placeFor("claude", "a", "think")
        const started = Date.now()
        const events = yield* Effect.scoped(Effect.gen(function*() {
          const session = yield* backend.open(
            place,
            Option.some(accountFor("claude", "a", folder, mock.url)),
            Settings.plain,
            {}
          )
          return yield* Stream.runCollect(session.turn({ text: "how long should I wait?", history: [] }))
        }))
        expect(finished).toBeDefined()
        Recording.write({
          cli: "claude",
          version: pinned.find((pin) => pin.cli === "claude")!.version,
          fault: "think",
          model: place.model,
          judged: "answer",
          ms: Date.now() - started,
          ...finished!
        }, folder)
        const tags = events.map((event) => event._tag)
        expect(tags[0]).toBe("SessionStarted")
        expect(tags.indexOf("Thinking")).toBeGreaterThan(0)
        expect(tags.lastIndexOf("Thinking")).toBeLessThan(tags.indexOf("Text"))
        expect(events.flatMap((event) => event._tag === "Thinking" ? [event.text] : []).join("")).toBe(thinking)
        expect(Backend.textOf(events)).toBe(text)
        expect(tags.at(-1)).toBe("Result")
        expect((yield* Effect.sync(() => mock.requests())).byFault.think).toBeGreaterThan(0)
      }),
    240_000
  )

  it.live(
    "claude prints each thinking piece as it comes: at its first, the mock, a second between pieces, is still writing",
    () =>
      Effect.gen(function*() {
        const folder = path.join(home, "claude-think-slow")
        fs.mkdirSync(folder, { recursive: true })
        const backend = backendFor("claude", { home: folder, url: mock.url, faults: [] }, () => {})
        const place = new Place.Place({ cli: "claude", account: "a", model: `${modelFor("claude", "think")}-slow` })
        const written = () => mock.requests().log.find((request) => request.model === place.model)?.sent ?? 0
        let atFirst: number | undefined
        const events = yield* Effect.scoped(Effect.gen(function*() {
          const session = yield* backend.open(
            place,
            Option.some(accountFor("claude", "a", folder, mock.url)),
            Settings.plain,
            {}
          )
          return yield* session.turn({ text: "how long should I wait?", history: [] }).pipe(
            Stream.tap((event) =>
              Effect.sync(() => {
                if (event._tag === "Thinking" && atFirst === undefined) atFirst = written()
              })
            ),
            Stream.runCollect
          )
        }))
        expect(Backend.textOf(events)).toBe(text)
        // Bytes the mock had written when the first thinking came out of claude, against all it wrote:
        // claude printed it while the rest of the answer (the text among it) was still to come.
        expect(atFirst).toBeGreaterThan(0)
        expect(atFirst).toBeLessThan(written())
      }),
    240_000
  )
})
