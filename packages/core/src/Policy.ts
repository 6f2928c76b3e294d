/**
 * The six wait policies, and the retrying a step asks for: how many goes beyond the first, with
 * which waits between them, within what time.
 *
 * Every policy's first wait is one second (for `exponential-jitter`, at most one second) and no
 * single wait is longer than a minute however far it climbs.
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { pipe } from "effect/Function"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import { echo } from "./internal/echo.js"
import * as internal from "./internal/policy.js"

/**
 * The policies' names, in the order the reference page lists them.
 *
 * @since 0.1.0
 * @category constants
 */
export const names = ["none", "constant", "linear", "exponential", "exponential-jitter", "fibonacci"] as const

/**
 * A policy's name.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Name = Schema.Literal(...names).annotations({
  identifier: "PolicyName",
  description: "how long to wait between tries",
  message: () => ({ message: `a policy is one of: ${names.join(", ")}`, override: true })
})

/**
 * @since 0.1.0
 * @category models
 */
export type Name = typeof Name.Type

/**
 * The policy a step gets when it names none: full jitter keeps agents that fail together from
 * all coming back on the same second.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultName: Name = "exponential-jitter"

/**
 * The first wait of every policy.
 *
 * @since 0.1.0
 * @category constants
 */
export const firstWait: Duration.Duration = Duration.seconds(1)

/**
 * No single wait is longer than this.
 *
 * @since 0.1.0
 * @category constants
 */
export const longestWait: Duration.Duration = Duration.seconds(60)

/**
 * The most tries a step may ask for beyond the first. A turn's own budget (20 requests by
 * default) ends trying long before; the bound keeps every ladder small enough to compute at once.
 *
 * @since 0.1.0
 * @category constants
 */
export const mostTries = 100

/**
 * The longest timeout a step may have: a day. Longer than any turn's budget, and a number every
 * file writes and reads back exactly.
 *
 * @since 0.1.0
 * @category constants
 */
export const longestTimeout: Duration.Duration = Duration.hours(24)

const longestSeconds = Duration.toSeconds(longestTimeout)

/**
 * A string that names no policy; the message lists the six.
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidPolicy extends Schema.TaggedError<InvalidPolicy>("@fallback/core/InvalidPolicy")(
  "InvalidPolicy",
  { input: Schema.String }
) {
  override get message(): string {
    return `${echo(this.input)} is not a policy; choose one of: ${names.join(", ")}`
  }
}

/**
 * Reads a policy's name.
 *
 * @since 0.1.0
 * @category constructors
 */
export const parse = (input: string): Either.Either<Name, InvalidPolicy> =>
  Schema.is(Name)(input) ? Either.right(input) : Either.left(new InvalidPolicy({ input }))

const capped = <In, R>(self: Schedule.Schedule<Duration.Duration, In, R>) =>
  Schedule.modifyDelay(self, (_, delay) => Duration.min(delay, longestWait))

const exponential = capped(Schedule.exponential(firstWait, 2))

/**
 * A policy as an endless Schedule of waits. Bound it with {@link toSchedule}.
 *
 * @since 0.1.0
 * @category constructors
 */
export const schedule = (name: Name): Schedule.Schedule<Duration.Duration> => {
  switch (name) {
    case "none":
      return Schedule.delays(Schedule.forever)
    case "constant":
      return Schedule.delays(Schedule.spaced(firstWait))
    case "linear":
      return capped(Schedule.linear(firstWait))
    case "exponential":
      return exponential
    case "exponential-jitter":
      return Schedule.delays(Schedule.jitteredWith(exponential, { min: 0, max: 1 }))
    case "fibonacci":
      return capped(Schedule.fibonacci(firstWait))
  }
}

/**
 * A whole number of seconds (or a fraction of one) in a file or on a command line, as a Duration
 * of whole milliseconds, so what is written reads back the same.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Seconds = Schema.transform(
  Schema.Number.pipe(Schema.finite(), Schema.between(0, longestSeconds)).annotations({
    message: () => ({ message: `a number of seconds from 0 to ${longestSeconds}`, override: true })
  }),
  Schema.DurationFromSelf.pipe(
    Schema.filter((duration) =>
      (Duration.isFinite(duration) && Duration.lessThanOrEqualTo(duration, longestTimeout)) ||
      `a time from 0 to ${longestSeconds} seconds`
    )
  ),
  {
    strict: true,
    decode: (seconds) => Duration.millis(Math.round(seconds * 1000)),
    encode: (duration) => Duration.toMillis(duration) / 1000
  }
).annotations({ identifier: "Seconds", description: "seconds, 0 for none" })

/**
 * What a step says about trying again at its place: `tries` goes beyond the first (0 is a failed
 * turn that stays failed), `policy` sets the waits, `timeout` is the longest the trying again may
 * go on for (zero: as long as the tries take).
 *
 * @since 0.1.0
 * @category models
 */
export class Retrying extends Schema.Class<Retrying>("@fallback/core/Retrying")({
  tries: Schema.Int.pipe(Schema.between(0, mostTries)).annotations({
    description: "how many goes beyond the first",
    message: () => ({ message: `a whole number of goes beyond the first, from 0 to ${mostTries}`, override: true })
  }),
  policy: Schema.optionalWith(Name, { default: () => defaultName, exact: true }),
  timeout: Schema.optionalWith(Seconds, { default: () => Duration.zero, exact: true })
}) {}

/**
 * Tries that are not a whole number of 0 or more, or a negative timeout.
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidRetrying extends Schema.TaggedError<InvalidRetrying>("@fallback/core/InvalidRetrying")(
  "InvalidRetrying",
  { reason: Schema.String }
) {
  override get message(): string {
    return `${this.reason}; tries is a whole number of goes beyond the first (0 to ${mostTries}) and timeout 0 to ${longestSeconds} seconds`
  }
}

/**
 * Makes the retrying a step asks for, checking each part; the policy defaults to
 * `exponential-jitter` and the timeout to none.
 *
 * @since 0.1.0
 * @category constructors
 */
export const retrying = (
  tries: number,
  policy: Name = defaultName,
  timeout: Duration.Duration = Duration.zero
): Either.Either<Retrying, InvalidRetrying> =>
  !Number.isSafeInteger(tries) || tries < 0 || tries > mostTries
    ? Either.left(new InvalidRetrying({ reason: `tries is ${String(tries).slice(0, 24)}` }))
    : !Duration.isFinite(timeout) || Duration.greaterThan(timeout, longestTimeout)
    ? Either.left(
      new InvalidRetrying({
        reason: `timeout is ${Duration.isFinite(timeout) ? Duration.format(timeout) : "infinite"}`
      })
    )
    : Either.right(
      new Retrying({
        tries: tries === 0 ? 0 : tries,
        policy,
        timeout: Duration.millis(Math.round(Duration.toMillis(timeout)))
      })
    )

/**
 * Retrying nothing: one go, and a failure stays a failure.
 *
 * @since 0.1.0
 * @category constants
 */
export const never: Retrying = new Retrying({ tries: 0 })

/**
 * The schedule a turn retries with, for a turn whose first attempt started at `startedAt` (epoch
 * millis, read from the turn's Clock). The budget is checked before each wait: a wait that would
 * end after `startedAt + timeout` is not started, so no attempt begins once the budget is spent.
 * `atLeast`, when given, is a floor on each wait read from the schedule's input (a failure's own
 * Retry-After, say), applied before the budget is checked, so a raised wait is checked too.
 *
 * @example
 * ```ts
 * import { Policy } from "@fallback/core"
 * import { Clock, Duration, Effect } from "effect"
 *
 * const retrying = new Policy.Retrying({ tries: 3, policy: "exponential", timeout: Duration.seconds(90) })
 *
 * const withRetrying = <A, E>(turn: Effect.Effect<A, E>) =>
 *   Effect.flatMap(Clock.currentTimeMillis, (startedAt) => Effect.retry(turn, Policy.toSchedule(retrying, startedAt)))
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const toSchedule: {
  (retrying: Retrying, startedAt: number): Schedule.Schedule<Duration.Duration>
  <In>(
    retrying: Retrying,
    startedAt: number,
    atLeast: (input: In) => Duration.Duration
  ): Schedule.Schedule<Duration.Duration, In>
} = <In>(
  retrying: Retrying,
  startedAt: number,
  atLeast?: (input: In) => Duration.Duration
): Schedule.Schedule<Duration.Duration, In> => {
  const counted: Schedule.Schedule<unknown, In> = Schedule.intersect(
    schedule(retrying.policy),
    Schedule.recurs(retrying.tries)
  )
  const floored = Schedule.delays(
    atLeast === undefined ? counted : pipe(counted, internal.atLeast((input: In) => Duration.toMillis(atLeast(input))))
  )
  return Duration.isZero(retrying.timeout)
    ? floored
    : pipe(floored, internal.beforeDeadline(startedAt + Duration.toMillis(retrying.timeout)))
}

/**
 * The waits before the 2nd, 3rd, 4th… try for `tries` goes beyond the first (at most
 * {@link mostTries}). For `exponential-jitter` these are the upper bounds each wait is drawn under.
 *
 * @since 0.1.0
 * @category constructors
 */
export const ladder = (name: Name, tries: number): ReadonlyArray<Duration.Duration> =>
  Effect.runSync(
    internal.waits(
      schedule(name === "exponential-jitter" ? "exponential" : name),
      Math.min(Math.max(0, tries), mostTries)
    )
  ).map(
    (millis) => Duration.millis(millis)
  )
