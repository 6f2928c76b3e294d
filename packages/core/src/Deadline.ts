/**
 * The one race of an effect against a time: a deadline, a first byte's limit, a send ceiling, an
 * idle limit. Times are epoch milliseconds on the Clock the effect runs with, so the same code is
 * timed by the live clock and by the TestClock; an effect that ends without waiting arms no timer.
 *
 * @example
 * ```ts
 * import { Deadline } from "@fallback/core"
 * import { Clock, Effect } from "effect"
 *
 * const call = Effect.never
 * const bounded = Effect.flatMap(
 *   Clock.currentTimeMillis,
 *   (now) => Deadline.cutAt(call, now + 30_000, () => "no first byte within 30s")
 * )
 * ```
 *
 * @since 0.1.0
 */
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import type * as Option from "effect/Option"
import * as internal from "./internal/turn/deadline.js"

/**
 * The longest wait a platform timer holds, in milliseconds (2^31 − 1, about 24.8 days): Node
 * fires a longer one at once. {@link timerAt} takes a longer wait in steps.
 *
 * @since 0.1.0
 * @category constants
 */
export const longestTimer: number = internal.longestTimer

/**
 * `self`, or `late()`'s failure once the Clock reaches `at` (epoch millis; `Infinity` bounds
 * nothing), `self` interrupted first. `self` starts at once on a fiber of its own: one that ends
 * without waiting has ended before any timer is armed.
 *
 * @since 0.1.0
 * @category combinators
 */
export const cutAt: <A, E, E2, R>(
  self: Effect.Effect<A, E, R>,
  at: number,
  late: () => E2
) => Effect.Effect<A, E | E2, R> = internal.cutAt

/**
 * {@link cutAt} for a time `after` from now: `late` is given how long it had.
 *
 * @since 0.1.0
 * @category combinators
 */
export const cutAfter: <A, E, E2, R>(
  self: Effect.Effect<A, E, R>,
  after: Duration.Input,
  late: (after: Duration.Duration) => E2
) => Effect.Effect<A, E | E2, R> = internal.cutAfter

/**
 * Waits for a running fiber until the Clock reaches `at`: its result, or none when the time came
 * first (the fiber goes on). Interrupting the wait interrupts the fiber.
 *
 * @since 0.1.0
 * @category combinators
 */
export const joinBy: <A, E>(fiber: Fiber.Fiber<A, E>, at: number) => Effect.Effect<Option.Option<A>, E> =
  internal.joinBy

/**
 * A platform timer that calls `run` at `at` (epoch millis by `now`), however far off, for code
 * outside Effect (a transport's callbacks); `cancel` stops it.
 *
 * @since 0.1.0
 * @category constructors
 */
export const timerAt: (at: number, run: () => void, now?: () => number) => { readonly cancel: () => void } =
  internal.timerAt
