/**
 * A whole reply at an `effect/ai` place is bounded by the time its first byte was due, by core's
 * one deadline race (`Deadline.cutAt`, which replaced this package's own `within`): the same
 * cases, on the TestClock and on the live clock.
 */
import { describe, expect, it } from "@effect/vitest"
import { Deadline } from "@fallback/core"
import { Clock, Duration, Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"

/** `effect` bounded at `millis` from now, counting the failures made for lateness. */
const bounded = <A>(effect: Effect.Effect<A, string>, millis: number, made: Array<Duration.Duration>) =>
  Effect.flatMap(Clock.currentTimeMillis, (now) =>
    Deadline.cutAt(effect, now + millis, () => {
      made.push(Duration.millis(millis))
      return "late"
    }))

describe("a whole reply bounded by the time its first byte was due", () => {
  it.effect("an answer that comes at once, or after a wait within the limit, makes no lateness failure", () =>
    Effect.gen(function*() {
      const made: Array<Duration.Duration> = []
      expect(yield* bounded(Effect.succeed("at once"), 1_000, made)).toBe("at once")
      const waited = yield* Effect.forkChild(
        bounded(Effect.as(Effect.sleep("500 millis"), "after a wait"), 1_000, made)
      )
      yield* TestClock.adjust("500 millis")
      expect(yield* Fiber.join(waited)).toBe("after a wait")
      expect(made).toEqual([])
    }))

  it.effect("an answer that does not come in time fails once, with the time it was given", () =>
    Effect.gen(function*() {
      const made: Array<Duration.Duration> = []
      const late = yield* Effect.forkChild(Effect.flip(bounded(Effect.never, 1_000, made)))
      yield* TestClock.adjust("1 second")
      expect(yield* Fiber.join(late)).toBe("late")
      expect(made.map(Duration.toMillis)).toEqual([1_000])
    }))

  it.effect("a failure that comes at once is the effect's own", () =>
    Effect.gen(function*() {
      const made: Array<Duration.Duration> = []
      expect(yield* Effect.flip(bounded(Effect.fail("refused"), 1_000, made))).toBe("refused")
      expect(made).toEqual([])
    }))

  it.live("on the live clock, a limit past what a platform timer holds (24.8 days) does not cut the reply short", () =>
    Effect.gen(function*() {
      const made: Array<Duration.Duration> = []
      const thirtyDays = 30 * 24 * 60 * 60 * 1000
      expect(yield* bounded(Effect.as(Effect.sleep("20 millis"), "answered"), thirtyDays, made)).toBe("answered")
      expect(made).toEqual([])
    }))
})
