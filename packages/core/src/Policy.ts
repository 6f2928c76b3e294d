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
import { pipe } from "effect/Function"
import * as Random from "effect/Random"
import * as Result from "effect/Result"
import type * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import * as SchemaTransformation from "effect/SchemaTransformation"
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
export const Name = Schema.Literals(names).annotate({
  identifier: "PolicyName",
  description: "how long to wait between tries",
  message: `a policy is one of: ${names.join(", ")}`
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
export const parse = (input: string): Result.Result<Name, InvalidPolicy> =>
  Schema.is(Name)(input) ? Result.succeed(input) : Result.fail(new InvalidPolicy({ input }))

const first = Duration.toMillis(firstWait)
const longest = Duration.toMillis(longestWait)
const capped = (millis: number) => Math.min(millis, longest)
const exponentialAt = (n: number) => capped(first * 2 ** (n - 1))
const fibonacciAt = (() => {
  const known = [0, first, first]
  return (n: number) => {
    for (let i = known.length; i <= n; i++) known.push(known[i - 1]! + known[i - 2]!)
    return capped(known[n]!)
  }
})()

/**
 * A policy as an endless Schedule of waits. Bound it with {@link toSchedule}.
 *
 * @since 0.1.0
 * @category constructors
 */
export const schedule = (name: Name): Schedule.Schedule<Duration.Duration> => ladders[name]

const ladders: Record<Name, Schedule.Schedule<Duration.Duration>> = {
  none: internal.ladderOf(() => 0),
  constant: internal.ladderOf(() => first),
  linear: internal.ladderOf((n) => capped(first * n)),
  exponential: internal.ladderOf(exponentialAt),
  // full jitter: uniform in [0, the exponential wait)
  "exponential-jitter": internal.ladderOf((n) => Effect.map(Random.next, (r) => Math.floor(r * exponentialAt(n)))),
  fibonacci: internal.ladderOf(fibonacciAt)
}

const secondsMessage = `a number of seconds from 0 to ${longestSeconds}`

/**
 * A whole number of seconds (or a fraction of one) in a file or on a command line, as a Duration
 * of whole milliseconds, so what is written reads back the same.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Seconds = Schema.Number.annotate({ message: secondsMessage, description: "seconds, 0 for none" }).check(
  Schema.isFinite({ message: secondsMessage }),
  Schema.isBetween({ minimum: 0, maximum: longestSeconds }, { message: secondsMessage })
).pipe(
  Schema.decodeTo(
    Schema.Duration.check(
      Schema.makeFilter((duration: Duration.Duration) =>
        (Duration.isFinite(duration) && Duration.isLessThanOrEqualTo(duration, longestTimeout)) ||
        `a time from 0 to ${longestSeconds} seconds`
      )
    ),
    SchemaTransformation.transform({
      decode: (seconds: number) => Duration.millis(Math.round(seconds * 1000)),
      encode: (duration: Duration.Duration) => Duration.toMillis(duration) / 1000
    })
  ),
  Schema.annotate({ identifier: "Seconds", description: "seconds, 0 for none" })
)

const triesMessage = `a whole number of goes beyond the first, from 0 to ${mostTries}`

/**
 * What a step says about trying again at its place: `tries` goes beyond the first (0 is a failed
 * turn that stays failed), `policy` sets the waits, `timeout` is the longest the trying again may
 * go on for (zero: as long as the tries take).
 *
 * @since 0.1.0
 * @category models
 */
export class Retrying extends Schema.Class<Retrying>("@fallback/core/Retrying")({
  tries: Schema.Number.annotate({ message: triesMessage }).check(
    Schema.isInt({ message: triesMessage }),
    Schema.isBetween({ minimum: 0, maximum: mostTries }, { message: triesMessage })
  ).annotate({ description: "how many goes beyond the first" }),
  policy: Name.pipe(
    Schema.withConstructorDefault(Effect.succeed(defaultName)),
    Schema.withDecodingDefaultTypeKey(Effect.succeed(defaultName))
  ),
  timeout: Seconds.pipe(
    Schema.withConstructorDefault(Effect.succeed(Duration.zero)),
    Schema.withDecodingDefaultTypeKey(Effect.succeed(Duration.zero))
  )
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
): Result.Result<Retrying, InvalidRetrying> =>
  !Number.isSafeInteger(tries) || tries < 0 || tries > mostTries
    ? Result.fail(new InvalidRetrying({ reason: `tries is ${String(tries).slice(0, 24)}` }))
    : !Duration.isFinite(timeout) || Duration.isGreaterThan(timeout, longestTimeout)
    ? Result.fail(
      new InvalidRetrying({
        reason: `timeout is ${Duration.isFinite(timeout) ? Duration.format(timeout) : "infinite"}`
      })
    )
    : Result.succeed(
      new Retrying({
        tries: tries === 0 ? 0 : tries,
        policy,
        // a negative time is none, as v3 Durations were
        timeout: Duration.millis(Math.max(0, Math.round(Duration.toMillis(timeout))))
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
  const counted = internal.counted(retrying.tries)(
    schedule(retrying.policy) as Schedule.Schedule<Duration.Duration, In>
  )
  const floored = atLeast === undefined
    ? counted
    : pipe(counted, internal.atLeast((input: In) => Duration.toMillis(atLeast(input))))
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
