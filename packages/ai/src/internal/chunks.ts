import type * as Arr from "effect/Array"
import * as Effect from "effect/Effect"
import type * as Pull from "effect/Pull"
import * as Stream from "effect/Stream"

/**
 * Each chunk of a stream as the elements `f` makes of it, chunks left empty skipped: one step a
 * chunk where `Stream.flatMap(… Stream.fromArray)` builds a stream for every element and
 * `Stream.mapEffect` cuts every chunk into single elements (so each stage after it runs once an
 * element). `f` may end the stream's chunk early with a failure: the elements made before it are
 * emitted first and the failure is the next pull's.
 *
 * @internal
 */
export const spread = <A, E, R, B, E2 = never>(
  self: Stream.Stream<A, E, R>,
  f: (chunk: Arr.NonEmptyReadonlyArray<A>) => {
    readonly out: ReadonlyArray<B>
    readonly failure?: Effect.Effect<never, E2> | undefined
  }
): Stream.Stream<B, E | E2, R> =>
  Stream.transformPull(self, (pull) =>
    Effect.sync(() => {
      let failing: Effect.Effect<never, E2> | undefined
      const next = (chunk: Arr.NonEmptyReadonlyArray<A>): Pull.Pull<Arr.NonEmptyReadonlyArray<B>, E | E2, void> => {
        const { failure, out } = f(chunk)
        if (failure !== undefined) {
          if (out.length === 0) return failure
          failing = failure
        }
        return out.length === 0 ? Effect.flatMap(pull, next) : Effect.succeed(out as Arr.NonEmptyReadonlyArray<B>)
      }
      return Effect.suspend(() => failing ?? Effect.flatMap(pull, next))
    })) as Stream.Stream<B, E | E2, R>
