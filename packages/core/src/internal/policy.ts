import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Pull from "effect/Pull"
import * as Random from "effect/Random"
import * as Schedule from "effect/Schedule"

type Step<In> = (now: number, input: In) => Pull.Pull<[Duration.Duration, Duration.Duration], never, Duration.Duration>

const stepping = <In>(make: () => Step<In>): Schedule.Schedule<Duration.Duration, In> =>
  Schedule.fromStep(Effect.sync(make))

/**
 * An endless schedule whose `n`th wait (from 1) is `waitOf(n)` millis, each given out as it is.
 *
 * @internal
 */
export const ladderOf = (waitOf: (n: number) => number | Effect.Effect<number>): Schedule.Schedule<Duration.Duration> =>
  stepping(() => {
    let n = 0
    return () => {
      const millis = waitOf(++n)
      return typeof millis === "number"
        ? Effect.succeed(both(millis))
        : Effect.map(millis, both)
    }
  })

const both = (millis: number): [Duration.Duration, Duration.Duration] => {
  const duration = Duration.millis(millis)
  return [duration, duration]
}

/**
 * The given waits, in order, then done.
 *
 * @internal
 */
export const fromDelays = (delays: ReadonlyArray<Duration.Duration>): Schedule.Schedule<Duration.Duration> =>
  stepping(() => {
    let n = 0
    return () => {
      const next = delays[n++]
      return next === undefined ? Cause.done(Duration.zero) : Effect.succeed([next, next])
    }
  })

/**
 * A schedule that is done at once: no go beyond the first.
 *
 * @internal
 */
export const stop: Schedule.Schedule<Duration.Duration, unknown> = stepping(() => () => Cause.done(Duration.zero))

/** A schedule whose every step is `f` of the step it wraps: the wait it asks for, and when it asks at. */
const around = <In>(
  self: Schedule.Schedule<Duration.Duration, In>,
  f: (wait: number, now: number, input: In, goes: number) => number | undefined
): Schedule.Schedule<Duration.Duration, In> =>
  Schedule.fromStep(Effect.map(Schedule.toStep(self), (step) => {
    let goes = 0
    return (now: number, input: In) =>
      Effect.flatMap(step(now, input), ([, delay]) => {
        const wait = f(Duration.toMillis(delay), now, input, ++goes)
        return wait === undefined ? Cause.done(Duration.zero) : Effect.succeed(both(wait))
      })
  }))

/**
 * At most `tries` goes beyond the first.
 *
 * @internal
 */
export const counted = (tries: number) => <In>(self: Schedule.Schedule<Duration.Duration, In>) =>
  around(self, (wait, _now, _input, goes) => goes > tries ? undefined : wait)

/**
 * Stops a schedule, without waiting, when the next attempt would start after `deadline`
 * (epoch millis), read from the time the schedule is stepped at, so it agrees with any clock.
 *
 * @internal
 */
export const beforeDeadline = (deadline: number) => <In>(self: Schedule.Schedule<Duration.Duration, In>) =>
  around(self, (wait, now) => now + wait <= deadline ? wait : undefined)

/**
 * Makes a schedule wait at least `least(input)` millis before the next attempt, where it asks for
 * less: a failure's own floor (a Retry-After, a kind's least wait) on top of a policy's waits.
 *
 * @internal
 */
export const atLeast = <In>(least: (input: In) => number) => (self: Schedule.Schedule<Duration.Duration, In>) =>
  around(self, (wait, _now, input) => Math.max(wait, least(input)))

/**
 * A schedule stepped by hand: `next(now, input)` is the time the next attempt starts at, or
 * none when the schedule is done.
 *
 * @internal
 */
export const stepper = <In>(
  self: Schedule.Schedule<Duration.Duration, In>
): Effect.Effect<(now: number, input: In) => Effect.Effect<number | undefined>> =>
  Effect.map(Schedule.toStep(self), (step) => (now, input) =>
    Pull.catchDone(
      Effect.map(step(now, input), ([, delay]): number | undefined => now + Duration.toMillis(delay)),
      () => Effect.succeed(undefined)
    ))

/**
 * The waits a schedule asks for, at most `count` of them, by stepping it from `start` as if
 * every attempt took no time.
 *
 * @internal
 */
export const waits = <In>(self: Schedule.Schedule<Duration.Duration, In>, count: number, start = 0) =>
  Effect.gen(function*() {
    const next = yield* stepper(self)
    let now = start
    const out: Array<number> = []
    for (let i = 0; i < count; i++) {
      const at = yield* next(now, undefined as In)
      if (at === undefined) break
      out.push(at - now)
      now = at
    }
    return out
  })

/**
 * Draws each wait of a schedule uniformly from `[wait · (1 − fraction), wait]` (whole millis, from
 * the fiber's `Random`), so agents failing together do not come back on the same millisecond while
 * no wait falls below its lower bound (never a tight loop). A fraction of 0 leaves it as it is.
 *
 * @internal
 */
export const jittered =
  (fraction: number) =>
  <In>(self: Schedule.Schedule<Duration.Duration, In>): Schedule.Schedule<Duration.Duration, In> => {
    if (fraction <= 0) return self
    const share = Math.min(1, fraction)
    return Schedule.fromStep(
      Effect.map(
        Schedule.toStep(self),
        (step) => (now: number, input: In) =>
          Effect.flatMap(step(now, input), ([, delay]) => {
            const wait = Duration.toMillis(delay)
            return Effect.map(Random.next, (r) => both(wait - Math.floor(r * share * wait)))
          })
      )
    )
  }

/**
 * Honours a wait the input asked for itself (a Retry-After), `asked(input)` millis: up to
 * `longest`, the next wait is exactly `least(input)` (the asked wait, or a longer floor) in place
 * of the one the schedule asks for; longer, the schedule is done at once (the turn moves on).
 * An input that asked for nothing keeps the schedule's own wait.
 *
 * @internal
 */
export const honouring =
  <In>(longest: number, asked: (input: In) => number, least: (input: In) => number) =>
  (self: Schedule.Schedule<Duration.Duration, In>): Schedule.Schedule<Duration.Duration, In> =>
    around(self, (wait, _now, input) => {
      const said = asked(input)
      return said <= 0 ? wait : said > longest ? undefined : Math.max(said, least(input))
    })
