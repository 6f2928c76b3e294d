/**
 * The recordings of the real CLIs, one per CLI × fault, judged again by each backend's
 * `readOutcome`: what the agents suite saw live is what every ordinary run is held to.
 */
import { Claude, Codex, Gemini, OpenCode } from "@fallback/backends"
import type { Cli as CliOptions } from "@fallback/backends"
import { Backend, Place } from "@fallback/core"
import * as Duration from "effect/Duration"
import * as Result from "effect/Result"
import { describe, expect, it } from "vitest"
import { type Cli, expected, faults, quotaEnds, waits } from "./expected.js"
import { key } from "./places.js"
import * as Recording from "./recording.js"

const judges: Record<Cli, (finished: CliOptions.Finished, place: Place.Place) => CliOptions.Outcome> = {
  claude: Claude.readOutcome,
  codex: Codex.readOutcome,
  gemini: Gemini.readOutcome,
  opencode: OpenCode.readOutcome
}

describe.each(Object.keys(judges) as ReadonlyArray<Cli>)("%s, as recorded", (cli) => {
  it.each(faults)("%s", (fault) => {
    const recording = Recording.read(cli, fault)
    expect(recording, `no recording of ${cli} × ${fault}; run npm run test:agents`).toBeDefined()
    const place = new Place.Place({ cli, account: "a", model: recording!.model })
    const outcome = judges[cli](recording!, place)
    const judged = Result.match(outcome, { onFailure: (failure) => failure._tag, onSuccess: () => "answer" })
    expect(judged).toBe(expected[cli][fault])
    expect(recording!.judged).toBe(judged)
    Result.match(outcome, {
      onFailure: (failure) => {
        expect(failure.place).toEqual(place)
        expect(failure.said.length).toBeGreaterThan(0)
        expect(failure.message).not.toContain(key)
        if (fault === "rate-limit") {
          const wait = waits[cli]
          expect(failure._tag === "RateLimited" ? failure.retryAfter : "not rate-limited")
            .toEqual(wait === undefined ? undefined : Duration.seconds(wait))
        }
        // Issue 22: an overload is narrated as one, though answered as a rate limit.
        if (fault === "overloaded") expect(failure.message).toContain(" is overloaded")
        if (fault === "rate-limit") expect(failure.message).toContain(" is rate-limited")
        if (fault === "quota") {
          expect(failure._tag === "QuotaExhausted" && failure.until !== undefined).toBe(quotaEnds[cli])
        }
      },
      onSuccess: (turned) => {
        expect(turned.sessionId).toBeDefined()
        expect(turned.events[0]).toEqual(Backend.Event.SessionStarted({ sessionId: turned.sessionId! }))
        expect(turned.events.at(-1)?._tag).toBe("Result")
      }
    })
  })
})
