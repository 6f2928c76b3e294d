/**
 * The `api` preset, row by row, walked on the TestClock with the scripted backend: every request
 * at the place that failed and when it went out (the spacing between goes, to the millisecond or
 * within the jitter's bounds), where the turn answered, and what the caller got, both for a turn
 * answered whole and for a streamed one.
 */
import { describe, expect, it } from "@effect/vitest"
import { Scripted } from "@fallback/testkit"
import { Duration, Effect, Exit, Fiber, Option, Random, Stream } from "effect"
import { TestClock } from "effect/testing"
import type { Failure } from "../../src/index.js"
import { Agent, Place, Preset } from "../../src/index.js"
import { gaps, next, setup, tooMany, work } from "./api.js"

interface Row {
  readonly name: string
  /** What the first place's requests do, in order (the last repeats). */
  readonly script: ReadonlyArray<Scripted.Outcome>
  /** The least and the most each wait between two requests at the first place may be, in order. */
  readonly spacing: ReadonlyArray<readonly [number, number]>
  /** Where the turn answered (at the time of the last request there), or that it failed with a kind. */
  readonly ends: string | { readonly fails: Failure.Kind }
}

const exactly = (millis: number) => [millis, millis] as const

const rows: ReadonlyArray<Row> = [
  {
    name: "a short Retry-After is the next go, exactly",
    script: [tooMany("2 seconds"), Scripted.answer("ok")],
    spacing: [exactly(2000)],
    ends: work
  },
  {
    name: "a Retry-After of 10 s is still short",
    script: [tooMany("10 seconds"), Scripted.answer("ok")],
    spacing: [exactly(10_000)],
    ends: work
  },
  {
    name: "a short Retry-After said every time: each honoured exactly, three times, then moves",
    script: [tooMany("2 seconds")],
    spacing: [exactly(2000), exactly(2000), exactly(2000)],
    ends: next
  },
  { name: "a long Retry-After moves on at once", script: [tooMany("11 seconds")], spacing: [], ends: next },
  { name: "a Retry-After of a minute moves on at once", script: [tooMany("60 seconds")], spacing: [], ends: next },
  {
    name: "a persistent 429 without Retry-After backs off three times with jitter, then moves",
    script: [tooMany()],
    spacing: [[500, 1000], [1000, 2000], [2000, 4000]],
    ends: next
  },
  {
    name: "a persistent 503 without Retry-After backs off three times with jitter, then moves",
    script: [tooMany(undefined, 503)],
    spacing: [[500, 1000], [1000, 2000], [2000, 4000]],
    ends: next
  },
  {
    name: "a 503 once, then the answer there",
    script: [tooMany(undefined, 503), Scripted.answer("ok")],
    spacing: [[500, 1000]],
    ends: work
  },
  {
    name: "a 5xx is tried once more with jitter, then moved",
    script: [Scripted.fail("Unknown")],
    spacing: [[500, 1000]],
    ends: next
  },
  {
    name: "a 5xx once, then the answer there",
    script: [Scripted.fail("Unknown"), Scripted.answer("ok")],
    spacing: [[500, 1000]],
    ends: work
  },
  {
    name: "a reset before any byte is retried at once",
    script: [Scripted.fail("ConnectionLost"), Scripted.answer("ok")],
    spacing: [exactly(0)],
    ends: work
  },
  { name: "a reset again moves", script: [Scripted.fail("ConnectionLost")], spacing: [exactly(0)], ends: next },
  { name: "a first-byte timeout (a silent route) moves", script: [Scripted.fail("Timeout")], spacing: [], ends: next },
  { name: "a stall moves", script: [Scripted.fail("Unresponsive")], spacing: [], ends: next },
  {
    name: "a content refusal is never retried",
    script: [Scripted.fail("Refused")],
    spacing: [],
    ends: { fails: "Refused" }
  },
  { name: "a spent quota moves on at once", script: [Scripted.fail("QuotaExhausted")], spacing: [], ends: next }
]

const answered = (events: ReadonlyArray<{ readonly _tag: string }>) =>
  events.flatMap((event) => "text" in event && event._tag === "Text" ? [event.text as string] : []).join("")

/** One turn under the api preset, whole (`Agent.ask`) or streamed (`agent.turn`), with the clock run on. */
const take = (whole: boolean, prompt = "hello") =>
  Effect.gen(function*() {
    const agent = yield* Agent.make(work, undefined, Preset.api.options)
    const fiber = yield* Effect.forkChild(Effect.exit(
      whole ? Agent.ask(agent, prompt) : Effect.map(Stream.runCollect(agent.turn(prompt)), answered)
    ))
    yield* TestClock.adjust("1 hour")
    return yield* Fiber.join(fiber)
  })

describe("api preset: each row", () => {
  for (const [row, whole] of rows.flatMap((row) => [[row, true], [row, false]] as const)) {
    for (const seed of ["one", "two", "three"]) {
      it.effect(`${row.name} (${whole ? "whole" : "streamed"}, seed ${seed})`, () =>
        Effect.gen(function*() {
          const exit = yield* take(whole)
          const scripted = yield* Scripted.Scripted
          const at = scripted.seen(work).at
          expect(at[0]).toBe(0)
          const spaced = gaps(at)
          expect(spaced.length).toBe(row.spacing.length)
          spaced.forEach((gap, i) => {
            expect(gap).toBeGreaterThanOrEqual(row.spacing[i]![0])
            expect(gap).toBeLessThanOrEqual(row.spacing[i]![1])
          })
          if (typeof row.ends === "string") {
            expect(exit).toEqual(Exit.succeed(row.ends === work ? "ok" : `ok from ${next}`))
            if (row.ends === next) expect(scripted.seen(next).at).toEqual([at.at(-1)])
            else expect(scripted.seen(next).turns).toBe(0)
          } else {
            expect(Exit.isFailure(exit) && Exit.findErrorOption(exit)).toMatchObject({
              value: { _tag: row.ends.fails }
            })
            expect(scripted.seen(next).turns).toBe(0)
          }
        }).pipe(Effect.provide(setup(row.script, whole)), Random.withSeed(seed)))
    }
  }

  it.effect("a silent route is asked once: the first-byte limit ends it and the next place answers", () =>
    Effect.gen(function*() {
      const exit = yield* take(true)
      const scripted = yield* Scripted.Scripted
      expect(exit).toEqual(Exit.succeed(`ok from ${next}`))
      expect(scripted.seen(work).at).toEqual([0])
      expect(scripted.seen(next).at).toEqual([30_000])
    }).pipe(Effect.provide(setup([Scripted.hang]))))

  it.effect("a long Retry-After cools the place for as long as it asked: the next turns move on at once", () =>
    Effect.gen(function*() {
      const agent = yield* Agent.make(work, undefined, Preset.api.options)
      expect(yield* Agent.ask(agent, "first")).toBe(`ok from ${next}`)
      yield* TestClock.adjust("59 seconds")
      expect(yield* Agent.ask(agent, "cooling")).toBe(`ok from ${next}`)
      expect((yield* Scripted.Scripted).seen(work).at).toEqual([0])
      yield* TestClock.adjust("1 second")
      expect(yield* Agent.ask(agent, "cooled")).toBe("ok")
      expect((yield* Scripted.Scripted).seen(work).at).toEqual([0, 60_000])
    }).pipe(Effect.provide(setup([tooMany("60 seconds"), Scripted.answer("ok")]))))

  it.effect("a cooldown in force moves on at once, without a request", () =>
    Effect.gen(function*() {
      const agent = yield* Agent.make(work, undefined, Preset.api.options)
      // A 429 that said nothing of when: the place cools 10 s after the last one, so while this turn
      // is still backing off there, another moves on at once.
      const first = yield* Effect.forkChild(Agent.ask(agent, "backing off"))
      yield* TestClock.adjust("100 millis")
      const other = yield* Agent.make(work, undefined, Preset.api.options)
      const meanwhile = yield* Effect.forkChild(Agent.ask(other, "meanwhile"))
      yield* TestClock.adjust("1 millis")
      // Answered with no time passing for it: no wait at the cooling place.
      expect(meanwhile.pollUnsafe()).toEqual(Exit.succeed(`ok from ${next}`))
      expect((yield* Scripted.Scripted).seen(work).at).toEqual([0])
      expect((yield* Scripted.Scripted).seen(next).at).toEqual([100])
      yield* TestClock.adjust("1 minute")
      expect(yield* Fiber.join(first)).toBe(`ok from ${next}`)
    }).pipe(Effect.provide(setup([tooMany()]))))

  it("its numbers", () => {
    expect(Duration.toMillis(Preset.shortRetryAfter)).toBe(10_000)
    expect([Preset.api.breaker.failures, Duration.toMillis(Preset.api.breaker.park)]).toEqual([3, 30_000])
    expect(Preset.api.options.moved).toBe("returns")
    expect(Preset.byName.api).toBe(Preset.api)
    expect(Preset.names).toEqual(["primary", "escalating", "breaker", "api"])
    expect(Place.format(Place.Place.make({ cli: "claude", model: "opus" }))).toBe(work)
  })

  it("the reference presets keep their numbers: 000's 30 s rate-limit wait, no jitter, no honoured Retry-After; 003's 30 s to open a stream at an HTTP API too", () => {
    const rateLimited = Preset.primary.options.answers.RateLimited
    expect([rateLimited.here.map(Duration.toMillis), Duration.toMillis(rateLimited.atLeast)]).toEqual([
      [30_000],
      30_000
    ])
    for (const preset of [Preset.primary, Preset.escalating, Preset.breaker]) {
      for (const answer of Object.values(preset.options.answers)) {
        expect([answer.jitter, answer.honours]).toEqual([0, undefined])
      }
    }
    expect(Preset.breaker.options.limits?.http.firstByte).toEqual(Option.some(Duration.seconds(30)))
    expect(Preset.escalating.options.limits).toBeUndefined()
  })
})
