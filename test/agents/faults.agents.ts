/**
 * Every agent CLI × every fault of the mock provider, through its backend: the failure kind it is
 * judged as, with its fields; what it printed is recorded for the ordinary run to replay.
 */
import { describe, expect, it } from "@effect/vitest"
import type { Cli as CliOptions } from "@fallback/backends"
import { Backend, Failure, Settings } from "@fallback/core"
import * as MockProvider from "@fallback/testkit/MockProvider"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll } from "vitest"
import { pinned } from "./clis.js"
import { type Cli, expected, faults, quotaEnds, waits } from "./expected.js"
import { accountFor, backendFor, key, keyVariable, modelFor, placeFor } from "./places.js"
import * as Recording from "./recording.js"

let mock: MockProvider.Running
const home = fs.mkdtempSync(path.join(path.resolve(import.meta.dirname, "../../.cache"), "agents-run-"))

beforeAll(async () => {
  process.env[keyVariable] = key
  mock = await MockProvider.start({ retryAfter: 1 })
})
afterAll(async () => {
  await mock?.stop()
  if (process.env.FALLBACK_AGENTS_KEEP === undefined) fs.rmSync(home, { recursive: true, force: true })
})

const clis: ReadonlyArray<Cli> = ["claude", "codex", "gemini", "opencode"]

describe.concurrent.each(clis)("%s", (cli) => {
  it.live.each(faults)(`${cli} × %s`, (fault) =>
    Effect.gen(function*() {
      const folder = path.join(home, `${cli}-${fault}`)
      fs.mkdirSync(folder, { recursive: true })
      let finished: CliOptions.Finished | undefined
      const url = fault === "refused" ? mock.refusedUrl : mock.url
      const backend = backendFor(cli, { home: folder, url, faults }, (run) => {
        finished = run
      })
      const place = placeFor(cli, "a", fault)
      const account = accountFor(cli, "a", folder, url)
      const started = Date.now()
      const outcome = yield* Effect.scoped(Effect.gen(function*() {
        const session = yield* backend.open(place, Option.some(account), Settings.plain, {})
        return yield* Stream.runCollect(session.turn({ text: "say hi", history: [] }))
      })).pipe(Effect.result)
      const judged = Result.match(outcome, { onFailure: (failure) => failure._tag, onSuccess: () => "answer" })
      expect(finished).toBeDefined()
      Recording.write({
        cli,
        version: pinned.find((pin) => pin.cli === cli)!.version,
        fault,
        model: modelFor(cli, fault),
        judged,
        ms: Date.now() - started,
        ...finished!
      }, folder)
      expect(judged).toBe(expected[cli][fault])
      if (Result.isSuccess(outcome)) {
        const events = [...outcome.success]
        expect(events.some((event) => event._tag === "SessionStarted")).toBe(true)
        expect(events.at(-1)?._tag).toBe("Result")
        expect(events.filter(Backend.isContent).length).toBeGreaterThan(0)
      } else {
        const failure = outcome.failure
        expect(Failure.isFailure(failure)).toBe(true)
        expect(failure.place).toEqual(place)
        expect(failure.message).not.toContain(key)
        expect(failure.said).not.toContain(key)
        expect(failure.said.length).toBeGreaterThan(0)
        if (fault === "rate-limit") {
          const wait = waits[cli]
          expect(failure._tag === "RateLimited" ? failure.retryAfter : "not rate-limited")
            .toEqual(wait === undefined ? undefined : Duration.seconds(wait))
        }
        if (fault === "quota") {
          expect(failure._tag === "QuotaExhausted" && failure.until !== undefined).toBe(quotaEnds[cli])
        }
      }
    }), 240_000)
})
