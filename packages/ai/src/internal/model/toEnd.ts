import type * as Arr from "effect/Array"
import * as Cause from "effect/Cause"
import * as Channel from "effect/Channel"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"

/**
 * A stream up to the first element `last` says ends it; its source is then read on to its own end,
 * the rest dropped, for at most `grace`. An HTTP body read to its end keeps its keep-alive
 * connection for the next call, where one cut short is aborted and its connection closed (as the
 * vendors' SDKs do, they read a stream past its end marker). A source that fails, or is not over
 * in time, after the last element just ends the stream.
 *
 * @internal
 */
export const toEnd = <A, E, R>(
  self: Stream.Stream<A, E, R>,
  last: (a: A) => boolean,
  grace: Duration.Input
): Stream.Stream<A, E, R> =>
  Stream.fromChannel(
    Channel.fromTransform((_, scope) =>
      Effect.map(Channel.toPullScoped(Stream.toChannel(self), scope), (pull) => {
        let over = false
        const drained = Effect.andThen(Effect.exit(Effect.timeout(Effect.forever(pull), grace)), Cause.done())
        return Effect.suspend(() =>
          over ? drained : Effect.map(pull, (chunk): Arr.NonEmptyReadonlyArray<A> => {
            const at = chunk.findIndex(last)
            if (at === -1) return chunk
            over = true
            return at === chunk.length - 1 ? chunk : chunk.slice(0, at + 1) as unknown as Arr.NonEmptyReadonlyArray<A>
          })
        )
      })
    )
  )
