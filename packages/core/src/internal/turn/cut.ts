import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as Answer from "../../Answer.js"
import * as Backend from "../../Backend.js"
import * as Failure from "../../Failure.js"
import * as Place from "../../Place.js"
import { coolUntil, type Request } from "./atPlace.js"
import { attempt, type Probe, promptOf } from "./attempt.js"
import type { Delivered, Kept } from "./kept.js"
import * as State from "./state.js"
import type { Run } from "./state.js"
import { type Accepts, walk, type Walker } from "./walk.js"

/**
 * The error `Agent.Cut` (documented there).
 *
 * @internal
 */
export class Cut extends Schema.TaggedError<Cut>("@fallback/core/Cut")("Cut", {
  place: Place.Place,
  delivered: Schema.String,
  failure: Failure.Failure,
  continuation: Schema.optional(Failure.Failure)
}) {
  override get message(): string {
    const then = this.continuation === undefined
      ? ""
      : `; the next place did not continue it: ${Failure.describe(this.continuation)}`
    return `${Place.format(this.place)} failed after ${this.delivered.length} characters of its answer reached you: ${
      Failure.describe(this.failure)
    }${then}`
  }
}

/** A streamed answer, as the caller reads it. @internal */
export type Answering = Stream.Stream<Backend.Event, Failure.Failure | Cut>

/**
 * What a streamed turn uses once content has reached its caller: the walk, each place's limits,
 * and the probe of a place.
 *
 * @internal
 */
export interface Cutting {
  readonly walker: Walker
  readonly keptAt: (place: Place.Place) => Kept
  readonly probe: Probe
}

/** The answer of a place that does not continue: the walk stops there, and the turn is cut. */
const declined: Answering = Stream.empty

/** A walk that moves only to a place whose backend and model continue an answer. */
const accepts = (walker: Walker): Accepts<Answering> => ({
  test: (place) => {
    const backend = walker.standIns.backendOf(place)
    return Result.isSuccess(backend) && Backend.continuesAt(backend.success, place)
  },
  otherwise: declined
})

/**
 * A streamed answer from `place`, whose failure after content reached the caller is answered by a
 * continuation: the walk goes on from `place` as a failure before the first content would, but
 * asks the next place to continue from what was delivered (`Prompt.prefill`). A next place that
 * does not continue, a turn inside a tool call, or a walk that finds nothing ends the turn as a
 * `Cut` with what was delivered; how a continuation failed rides beside the first failure.
 *
 * @internal
 */
export const guarded = (
  cutting: Cutting,
  run: Run,
  place: Place.Place,
  text: string,
  delivered: Delivered,
  answer: Stream.Stream<Backend.Event, Failure.Failure | Cut>
): Answering => Stream.catch(answer, (failure) => cut(cutting, run, place, text, delivered, failure))

const cut = (
  cutting: Cutting,
  run: Run,
  place: Place.Place,
  text: string,
  delivered: Delivered,
  failure: Failure.Failure | Cut
): Answering => {
  if (failure._tag === "Cut") return Stream.fail(failure)
  let refused: Failure.Failure | undefined = undefined
  const stop = (continuation: Failure.Failure | undefined) =>
    Stream.fail(new Cut({ place, delivered: delivered.text, failure, continuation }))
  if (delivered.tool || !run.options.fallback) return stop(undefined)
  const { walker } = cutting
  const continuing: Request<Answering> = (run, at, prompt) => {
    const prefilled = promptOf(prompt.text, run.history, delivered.text)
    return Effect.map(
      attempt(run, at, walker.standIns.hold(at), cutting.probe, prefilled, cutting.keptAt(at), delivered),
      (result) => {
        if (Result.isFailure(result)) {
          refused ??= result.failure
          return result
        }
        return Result.succeed(guarded(cutting, run, at, text, delivered, result.success))
      }
    )
  }
  const answer = Answer.of(run.options.answers, failure)
  const cools = coolUntil(answer, failure, run.clock.currentTimeMillisUnsafe())
  const recorded = walker.health.failed(place, { failure, counts: answer.counts, coolUntil: cools })
  return Stream.unwrap(Effect.andThen(
    recorded,
    Effect.match(walk(walker, run, place, { _tag: "Failed", failure }, text, continuing, accepts(walker)), {
      onFailure: (last): Answering => stop(refused ?? (last === failure ? undefined : last)),
      onSuccess: ({ answer, moves, place: at }): Answering => {
        if (answer === declined) return stop(refused)
        State.movedTo(run, at)
        return moves.length === 0 ? answer : Stream.concat(Stream.fromIterable(moves), answer)
      }
    })
  ))
}
