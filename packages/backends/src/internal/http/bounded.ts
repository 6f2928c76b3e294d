/**
 * A reply within its limits, kept by one fiber waited on (core's Deadline): its first byte, its
 * quiet spells, its end.
 */
import * as Deadline from "@fallback/core/Deadline"
import * as Failure from "@fallback/core/Failure"
import type * as Place from "@fallback/core/Place"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import { refusal } from "./continuation.js"
import { type Call, ok, type Response, type Transport } from "./response.js"

/**
 * The Timeout a limit that ran out is.
 *
 * @internal
 */
export const timeout = (place: Place.Place, phase: "first-byte" | "whole-send", after: number) =>
  new Failure.Timeout({
    place,
    said: Failure.said(phase === "first-byte" ? "no first byte" : "the whole reply did not come in time"),
    phase,
    after: Duration.millis(after)
  })

/**
 * How far a reply has come, told by its reader: whether its answer `began` (its first content),
 * and when (Clock millis) its `last` piece came.
 *
 * @internal
 */
export interface Progress {
  began: boolean
  last: number
  responded: boolean
}

/**
 * What bounds a reply (Clock millis): `by`, its first byte (the response, or, where `content`,
 * its first content: opening frames do not count); `whole`, all of it; `stall`, the longest quiet
 * spell once it began, with `stalled` the failure it is.
 *
 * @internal
 */
export interface Bounds {
  readonly by: number
  readonly whole: number
  readonly content?: boolean | undefined
  readonly stall?: number | undefined
  readonly stalled?: (() => Failure.Failure) | undefined
}

/**
 * A reply within its limits: the first byte by `by`, else a first-byte Timeout; no quiet spell
 * past `stall` once it began, else `stalled`; the whole body by `whole`, else a whole-send
 * Timeout. One fiber runs the reply, waited on by `by` and then, spell by spell, by `whole`.
 *
 * @internal
 */
export const bounded = <A>(
  transport: Transport,
  call: Call,
  read: (response: Response, progress: Progress) => Effect.Effect<A, Failure.Failure>,
  bounds: Bounds
): Effect.Effect<A, Failure.Failure> =>
  Effect.flatMap(Clock.currentTimeMillis, (sent) => {
    const { by, whole } = bounds
    const stall = bounds.stalled === undefined ? Infinity : bounds.stall ?? Infinity
    const progress: Progress = { began: false, last: sent, responded: false }
    const work = Effect.scoped(Effect.flatMap(transport.send(call), (response) =>
      Effect.clockWith((clock) => {
        progress.responded = true
        progress.last = clock.currentTimeMillisUnsafe()
        if (!ok(response)) {
          progress.began = true
          return refusal(call.place, response, call.continued === true)
        }
        if (bounds.content !== true) progress.began = true
        return read(response, progress)
      })))
    const late = () => timeout(call.place, "whole-send", whole - sent)
    // A `by` at or past `whole`, and no stall, bound nothing `whole` does not.
    if (!(by < whole) && !(stall < Infinity)) return Deadline.cutAt(work, whole, late)
    const cut = <B>(fiber: Fiber.Fiber<B, Failure.Failure>, failure: Failure.Failure) =>
      Effect.andThen(Fiber.interrupt(fiber), Effect.fail(failure))
    return Effect.flatMap(Effect.forkChild(work, { startImmediately: true }), (fiber) => {
      // Waits to the nearest limit that can end it now: `whole`, the first content's `by`, the
      // end of the quiet spell its last piece allows; there, ends it or waits again.
      const wait = (from: number): Effect.Effect<A, Failure.Failure> => {
        // Before the response came, the quiet spell is only looked at again, from `from` (the first byte is `by`'s).
        const quiet = (progress.responded ? progress.last : from) + stall
        const at = Math.min(whole, progress.began ? Infinity : by, quiet)
        return Effect.flatMap(Deadline.joinBy(fiber, at), (done) => {
          if (Option.isSome(done)) return Effect.succeed(done.value)
          return Effect.flatMap(Clock.currentTimeMillis, (now) => {
            if (now >= whole) return cut(fiber, late())
            if (!progress.began && now >= by) return cut(fiber, timeout(call.place, "first-byte", by - sent))
            if (progress.responded && now - progress.last >= stall && bounds.stalled !== undefined) {
              return cut(fiber, bounds.stalled())
            }
            return wait(now)
          })
        })
      }
      return wait(sent)
    })
  })
