import type * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"

/** @internal */
export const longestTimer = 2_147_483_647

/**
 * `Effect.forkChild(self, { startImmediately: true })`, its options given once: called with the
 * effect first, `forkChild` tells its two forms apart by asking whether the effect is one, a
 * lookup V8 makes on its slow path (every kind of effect passes there), on every attempt.
 *
 * @internal
 */
export const forkNow: <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<Fiber.Fiber<A, E>, never, R> = Effect
  .forkChild({ startImmediately: true })

/**
 * The fiber's result, or none at `at`. The last millisecond is waited for on its own, so whatever
 * else falls due at `at` (armed before that millisecond began) comes first, on every Clock.
 *
 * @internal
 */
export const joinBy = <A, E>(fiber: Fiber.Fiber<A, E>, at: number): Effect.Effect<Option.Option<A>, E> =>
  Effect.onInterrupt(
    Number.isFinite(at) ? Effect.clockWith((clock) => until(fiber, clock, at)) : Effect.asSome(Fiber.join(fiber)),
    () => Fiber.interrupt(fiber)
  )

const until = <A, E>(fiber: Fiber.Fiber<A, E>, clock: Clock.Clock, at: number): Effect.Effect<Option.Option<A>, E> => {
  const left = at - clock.currentTimeMillisUnsafe()
  if (left <= 1) return Effect.timeoutOption(Fiber.join(fiber), Duration.millis(Math.max(0, left)))
  return Effect.flatMap(
    Effect.timeoutOption(Fiber.join(fiber), Duration.millis(left - 1)),
    (got) => Option.isSome(got) ? Effect.succeed(got) : until(fiber, clock, at)
  )
}

/** @internal */
export const cutAt = <A, E, E2, R>(
  self: Effect.Effect<A, E, R>,
  at: number,
  late: () => E2
): Effect.Effect<A, E | E2, R> =>
  Number.isFinite(at)
    ? Effect.flatMap(forkNow(self), (fiber): Effect.Effect<A, E | E2> => {
      const done = fiber.pollUnsafe()
      if (done !== undefined) return done
      return Effect.flatMap(
        joinBy(fiber, at),
        (got) =>
          Option.isSome(got)
            ? Effect.succeed(got.value)
            : Effect.andThen(Fiber.interrupt(fiber), Effect.failSync(late))
      )
    })
    : self

/** @internal */
export const cutAfter = <A, E, E2, R>(
  self: Effect.Effect<A, E, R>,
  after: Duration.Input,
  late: (after: Duration.Duration) => E2
): Effect.Effect<A, E | E2, R> => {
  const duration = Duration.fromInputUnsafe(after)
  return Duration.isFinite(duration)
    ? Effect.clockWith((clock) =>
      cutAt(self, clock.currentTimeMillisUnsafe() + Duration.toMillis(duration), () => late(duration))
    )
    : self
}

// The timers of the platform the engine runs on (Node, Bun, Deno, a browser all have them).
declare const setTimeout: (run: () => void, millis: number) => unknown
declare const clearTimeout: (timer: unknown) => void
declare const Date: { now(): number }

/** @internal */
export const timerAt = (at: number, run: () => void, now: () => number = Date.now): { cancel: () => void } => {
  let timer: unknown
  let cancelled = false
  const step = () => {
    if (cancelled) return
    const left = at - now()
    timer = left > longestTimer ? setTimeout(step, longestTimer) : setTimeout(run, Math.max(0, left))
  }
  if (Number.isFinite(at)) step()
  return {
    cancel: () => {
      cancelled = true
      clearTimeout(timer)
    }
  }
}
