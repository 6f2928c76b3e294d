import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"

/**
 * A line on a terminal that counts down a wait second by second, then goes away; whatever is
 * written next clears it first.
 *
 * @internal
 */
export interface Countdown {
  readonly start: (wait: Duration.Duration, what: string) => Effect.Effect<void>
  readonly stop: Effect.Effect<void>
}

/** @internal */
export const none: Countdown = { start: () => Effect.void, stop: Effect.void }

/**
 * A countdown written to `stream` (a terminal).
 *
 * @internal
 */
export const on = (stream: { readonly write: (text: string) => unknown }): Countdown => {
  let running: Fiber.Fiber<void> | undefined
  const clear = Effect.sync(() => void stream.write("\r\u001b[K"))
  const stop = Effect.suspend(() => {
    const fiber = running
    running = undefined
    return fiber === undefined ? Effect.void : Effect.andThen(Fiber.interrupt(fiber), clear)
  })
  const tick = (left: number, what: string): Effect.Effect<void> =>
    left <= 0
      ? clear
      : Effect.sync(() => void stream.write(`\r\u001b[K  ${what} in ${left}s…`)).pipe(
        Effect.andThen(Effect.sleep(Duration.seconds(1))),
        Effect.andThen(Effect.suspend(() => tick(left - 1, what)))
      )
  return {
    start: (wait, what) =>
      Effect.andThen(
        stop,
        Effect.flatMap(
          Effect.forkDetach(tick(Math.ceil(Duration.toSeconds(wait)), what)),
          (fiber) => Effect.sync(() => void (running = fiber))
        )
      ),
    stop
  }
}
