import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import * as ScheduleDecision from "effect/ScheduleDecision"
import * as ScheduleInterval from "effect/ScheduleInterval"
import * as ScheduleIntervals from "effect/ScheduleIntervals"

/**
 * Stops a schedule, without waiting, when the next attempt would start after `deadline`
 * (epoch millis). It reads the time from the step, so it agrees with any clock that drives it.
 *
 * @internal
 */
export const beforeDeadline = (deadline: number) => <Out, In, R>(self: Schedule.Schedule<Out, In, R>) =>
  Schedule.makeWithState(
    self.initial,
    (now, input: In, state) =>
      Effect.map(
        self.step(now, input, state),
        ([next, out, decision]) =>
          ScheduleDecision.isContinue(decision) && ScheduleIntervals.start(decision.intervals) <= deadline
            ? [next, out, decision] as const
            : [next, out, ScheduleDecision.done] as const
      )
  )

/**
 * Makes a schedule wait at least `least(input)` millis before the next attempt, where it asks for
 * less: a failure's own floor (a Retry-After, a kind's least wait) on top of a policy's waits.
 *
 * @internal
 */
export const atLeast = <In>(least: (input: In) => number) => <Out, R>(self: Schedule.Schedule<Out, In, R>) =>
  Schedule.makeWithState(
    self.initial,
    (now, input: In, state) =>
      Effect.map(self.step(now, input, state), ([next, out, decision]) => {
        if (ScheduleDecision.isDone(decision)) return [next, out, decision] as const
        const start = ScheduleIntervals.start(decision.intervals)
        const floor = now + least(input)
        return start >= floor
          ? [next, out, decision] as const
          : [next, out, ScheduleDecision.continueWith(ScheduleInterval.after(floor))] as const
      })
  )

/**
 * The time a continuing step of a schedule asks the next attempt to start at; none when it is done.
 *
 * @internal
 */
export const nextAt = (decision: ScheduleDecision.ScheduleDecision): number | undefined =>
  ScheduleDecision.isDone(decision) ? undefined : ScheduleIntervals.start(decision.intervals)

/**
 * The waits a schedule asks for, at most `count` of them, by stepping it from `start` as if
 * every attempt took no time.
 *
 * @internal
 */
export const waits = <Out, R>(self: Schedule.Schedule<Out, unknown, R>, count: number, start = 0) =>
  Effect.gen(function*() {
    let state = self.initial
    let now = start
    const out: Array<number> = []
    for (let i = 0; i < count; i++) {
      const [next, , decision] = yield* self.step(now, undefined, state)
      if (ScheduleDecision.isDone(decision)) break
      const at = ScheduleIntervals.start(decision.intervals)
      out.push(at - now)
      now = at
      state = next
    }
    return out
  })
