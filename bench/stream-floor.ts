/**
 * What Effect's Stream costs per layer, on the stream a bench session answers with (three events
 * already there), folded as B1 folds a turn: the bare fold, then the same stream under each one
 * operator the engine could use to deliver an answer, and under the combinations it uses. Shows
 * the floor a streamed turn stands on: `npx tsx bench/stream-floor.ts` (or bundled:
 * `node bench/build.mjs stream-floor && node bench/stream-floor.bundle.mjs`).
 */
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"

const n = Number(process.env.BENCH_TURNS ?? 2_000)
const events = Stream.fromIterable(["SessionStarted", "Text", "Result"])
const fold = <E>(stream: Stream.Stream<string, E>) => Stream.runFold(stream, 0, (acc, event) => acc + event.length)

const median = (samples: Array<number>) => samples.sort((a, b) => a - b)[Math.floor(samples.length / 2)]!

/** µs a run of `effect`, over `n` runs in a row. */
const time = (effect: Effect.Effect<unknown, unknown>, runs: number) =>
  Effect.gen(function*() {
    const start = performance.now()
    for (let i = 0; i < runs; i++) yield* effect
    return ((performance.now() - start) * 1000) / runs
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
  ]
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
