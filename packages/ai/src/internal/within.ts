import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as DefaultServices from "effect/DefaultServices"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import type * as RuntimeFlags from "effect/RuntimeFlags"

// The timers of the platform the library runs on (Node, Bun, Deno, a browser all have them).
declare const setTimeout: (run: () => void, millis: number) => unknown
declare const clearTimeout: (timer: unknown) => void

/** The clock a program has unless it installs one (a test installs the TestClock). */
const liveClock = Context.get(DefaultServices.liveServices, Clock.Clock)

/**
 * `effect` bounded by `by` (Clock millis), failing with `late()` once the time has come (the
 * effect interrupted first), for a caller running on `fiber`. The effect is started at once, on a
 * fiber of its own that runs in the caller's context: one that answers without waiting (an
 * in-process model) is done before anything is scheduled, and costs no timer; one that waits is
 * raced with one timer (on the live clock a platform timer, on any other clock a timeout on it).
 * `Effect.timeoutFail` forks two fibers, sleeps in one and suspends the caller, several times a
 * whole in-process call.
 *
 * @internal
 */
export const within = <A, E>(
  fiber: Fiber.RuntimeFiber<unknown, unknown>,
  runtimeFlags: RuntimeFlags.RuntimeFlags,
  effect: Effect.Effect<A, E>,
  by: number,
  late: (after: Duration.Duration) => E
): Effect.Effect<A, E> => {
  if (!Number.isFinite(by)) return effect
  const clock = Context.get(fiber.currentDefaultServices, Clock.Clock)
  const left = Math.max(0, by - clock.unsafeCurrentTimeMillis())
  // The fiber ends with the effect's exit, so that a failure is not also reported as its own.
  const running = Runtime.runFork(
    Runtime.make({ context: fiber.currentContext, fiberRefs: fiber.getFiberRefs(), runtimeFlags }),
    Effect.exit(effect)
  )
  const done = running.unsafePoll()
  if (done !== null) return Exit.isSuccess(done) ? done.value : Effect.flatten(done)
  const after = Duration.millis(left)
  return Effect.flatMap(
    // A platform timer holds at most 2^31 - 1 ms (about 24.8 days); a longer wait is the clock's.
    clock === liveClock && left <= 2_147_483_647 ? joinBy(running, left) : joinOn(running, after),
    Option.match({
      // The failure is made only when the time came: making one (an Error) costs a stack trace.
      onNone: () => Effect.zipRight(Fiber.interrupt(running), Effect.failSync(() => late(after))),
      onSome: (exit): Effect.Effect<A, E> => exit
    })
  )
}

/** The fiber's result, or None when `after` has passed on the clock the caller runs on (a TestClock). */
const joinOn = <A, E>(fiber: Fiber.RuntimeFiber<A, E>, after: Duration.Duration) =>
  Effect.onInterrupt(Effect.timeoutOption(Fiber.join(fiber), after), () => Fiber.interrupt(fiber))

/** The fiber's result, or None when `millis` have passed: one platform timer beside the fiber's observer. */
const joinBy = <A, E>(fiber: Fiber.RuntimeFiber<A, E>, millis: number): Effect.Effect<Option.Option<A>, E> =>
  Effect.async<Option.Option<A>, E>((resume) => {
    let settled = false
    const timer = setTimeout(() => {
      if (settled) return
      settled = true
      resume(Effect.succeedNone)
    }, millis)
    fiber.addObserver((exit) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resume(Exit.map(exit, Option.some))
    })
    return Effect.suspend(() => {
      settled = true
      clearTimeout(timer)
      return Fiber.interrupt(fiber)
    })
  })
