/**
 * What Effect's Stream costs per layer, on the stream a bench session answers with (three events
 * already there), folded as B1 folds a turn: the bare fold, then the same stream under each one
 * operator the engine could use to deliver an answer, and under the combinations it uses. Shows
 * the floor a streamed turn stands on: `npx tsx bench/stream-floor.ts` (or bundled:
 * `node bench/build.mjs stream-floor && node bench/stream-floor.bundle.mjs`).
 */
import * as Channel from "effect/Channel"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"

const n = Number(process.env.BENCH_TURNS ?? 2_000)
const events = Stream.fromIterable(["SessionStarted", "Text", "Result"])
const fold = <E>(stream: Stream.Stream<string, E>) => Stream.runFold(stream, 0, (acc, event) => acc + event.length)

type Out = Channel.Channel<Chunk.Chunk<string>, unknown, never, unknown, unknown, unknown>

/** A channel that reads the stream it is piped from in line, noting each chunk, and passes it on. */
const inline = (stream: Stream.Stream<string>): Stream.Stream<string> => {
  const commit = () => {
    let seen = 0
    const loop: Channel.Channel<Chunk.Chunk<string>, Chunk.Chunk<string>, never, never, unknown, unknown> = Channel
      .readWithCause({
        onInput: (chunk: Chunk.Chunk<string>) => {
          seen += Chunk.size(chunk)
          return Channel.zipRight(Channel.write(chunk), loop)
        },
        onFailure: Channel.failCause,
        onDone: () => Channel.sync(() => seen)
      })
    return loop
  }
  return Stream.fromChannel(Channel.pipeTo(Stream.toChannel(stream), Channel.suspend(commit)))
}

/** The least an engine that bounds the stream can do: a scope, the stream's own executor, a pull per chunk. */
const pulled = (stream: Stream.Stream<string>, each: (pull: Pull) => Pull = (pull) => pull): Stream.Stream<string> => {
  const loop = (pull: Pull): Out => {
    const more: Out = Channel.unwrap(Effect.matchEffect(pull, {
      onFailure: () => Effect.succeed(Channel.void),
      onSuccess: (chunk) => Effect.succeed(Channel.zipRight(Channel.write(chunk), more))
    }))
    return more
  }
  return Stream.fromChannel(Channel.unwrap(Effect.map(Scope.make(), (scope) =>
    Channel.ensuringWith(
      Channel.unwrap(Effect.map(Scope.extend(Stream.toPull(stream), scope), (pull) => loop(each(pull)))),
      (exit) => Scope.close(scope, exit)
    ))))
}
type Pull = Effect.Effect<Chunk.Chunk<string>, Option.Option<never>>

/** Each pull on a fiber of its own, started at once, as the engine runs a pull a timer may cut. */
const onFiber = (pull: Pull): Pull =>
  Effect.flatMap(Effect.runtime<never>(), (runtime) => {
    const fiber = Runtime.runFork(runtime, pull)
    return fiber.unsafePoll() ?? fiber.await.pipe(Effect.flatten)
  })

const median = (samples: Array<number>) => samples.sort((a, b) => a - b)[Math.floor(samples.length / 2)]!

/** µs of CPU time a run of `effect`, over `n` runs in a row. */
const time = (effect: Effect.Effect<unknown, unknown>, runs: number) =>
  Effect.gen(function*() {
    const start = process.cpuUsage()
    for (let i = 0; i < runs; i++) yield* effect
    const spent = process.cpuUsage(start)
    return (spent.user + spent.system) / runs
  })

const rows: ReadonlyArray<readonly [string, Effect.Effect<unknown, unknown>]> = [
  ["bare fold", fold(events)],
  ["Stream.unwrapScoped", fold(Stream.unwrapScoped(Effect.succeed(events)))],
  ["Stream.tap", fold(Stream.tap(events, () => Effect.void))],
  ["Stream.onEnd", fold(Stream.onEnd(events, Effect.void))],
  ["Stream.concat(fromIterable([]), _)", fold(Stream.concat(Stream.fromIterable([]), events))],
  [
    "toPull, then Stream.repeatEffectChunkOption(pull)",
    fold(Stream.unwrapScoped(Effect.map(Stream.toPull(events), Stream.repeatEffectChunkOption)))
  ],
  ["Stream.interruptWhen(Effect.never)", fold(Stream.interruptWhen(events, Effect.never))],
  ["Stream.timeoutFail (1 h)", fold(Stream.timeoutFail(events, () => "late", "1 hour"))],
  [
    "Effect.timeoutFail round the fold (1 h)",
    Effect.timeoutFail(fold(events), { duration: "1 hour", onTimeout: () => "late" })
  ],
  ["Stream.catchAll", fold(Stream.catchAll(events, () => Stream.empty))],
  [
    "one pull function over toPull (repeatEffectChunkOption)",
    fold(
      Stream.unwrapScoped(
        Effect.map(
          Stream.toPull(events),
          (pull) => Stream.repeatEffectChunkOption(Effect.map(pull, Chunk.map((e) => e)))
        )
      )
    )
  ],
  [
    "toPull, each pull under Effect.timeoutFail (1 h)",
    fold(Stream.unwrapScoped(Effect.map(Stream.toPull(events), (pull) =>
      Stream.repeatEffectChunkOption(
        Effect.timeoutFail(pull, { duration: "1 hour", onTimeout: () => Option.some("late") })
      ))))
  ],
  ["in line: a channel reads the session's stream (one executor)", fold(inline(events))],
  ["bounded: scope, toPull, a pull per chunk (two executors)", fold(pulled(events))],
  ["bounded, each pull on a fiber started at once", fold(pulled(events, onFiber))]
]

// The rows are taken in turn, round after round, and each is read as its median ratio to the bare
// fold of the same round: a machine that others load drifts, and a ratio within a round holds.
const program = Effect.gen(function*() {
  const rounds = 15
  const ratios = rows.map(() => [] as Array<number>)
  const took = rows.map(() => [] as Array<number>)
  for (const [, effect] of rows) yield* time(effect, n / 10)
  for (let round = 0; round < rounds; round++) {
    const base = yield* time(rows[0]![1], n / rounds)
    for (const [i, [, effect]] of rows.entries()) {
      const t = yield* time(effect, n / rounds)
      took[i]!.push(t)
      ratios[i]!.push(t / base)
    }
  }
  for (const [i, [name]] of rows.entries()) {
    console.log(
      `${name.padEnd(58)} ${median(took[i]!).toFixed(1).padStart(8)} µs  ${
        median(ratios[i]!).toFixed(2)
      }× the bare fold`
    )
  }
})
await Effect.runPromise(program)
