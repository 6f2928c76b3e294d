/**
 * What Effect's Stream costs per layer, on the stream a bench session answers with (three events
 * already there), folded as B1 folds a turn: the bare fold, then the same stream under each one
 * operator the engine could use to deliver an answer, and under the combinations it uses. Shows
 * the floor a streamed turn stands on: `npx tsx bench/stream-floor.ts` (or bundled:
 * `node bench/build.mjs stream-floor && node bench/stream-floor.bundle.mjs`).
 */
import * as Arr from "effect/Array"
import * as Channel from "effect/Channel"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import type * as Pull from "effect/Pull"
import * as Stream from "effect/Stream"

const n = Number(process.env.BENCH_TURNS ?? 2_000)
const events = Stream.fromIterable(["SessionStarted", "Text", "Result"])
const fold = <E>(stream: Stream.Stream<string, E>) =>
  Stream.runFold(stream, () => 0, (acc, event) => acc + event.length)

/** A channel that maps the stream it is piped from in line, noting each chunk, and passes it on. */
const noted = { events: 0 }
const inline = (stream: Stream.Stream<string>): Stream.Stream<string> =>
  Stream.fromChannel(Channel.map(Stream.toChannel(stream), (chunk) => {
    noted.events += chunk.length
    return chunk
  }))

type Pulled = Pull.Pull<Arr.NonEmptyReadonlyArray<string>, never>

/** The least an engine that bounds the stream can do: a scope, a pull per chunk. */
const pulled = (stream: Stream.Stream<string>, each: (pull: Pulled) => Pulled = (pull) => pull) =>
  Stream.unwrap(Effect.map(Stream.toPull(stream), (pull) => Stream.fromPull(Effect.succeed(each(pull)))))

/** Each pull on a fiber of its own, started at once, as the engine runs a pull a timer may cut. */
const onFiber = (pull: Pulled): Pulled =>
  Effect.flatMap(Effect.context<never>(), (context) => {
    const fiber = Effect.runForkWith(context)(pull)
    const done = fiber.pollUnsafe()
    return done === undefined ? Fiber.join(fiber) : Exit.isSuccess(done) ? Effect.succeed(done.value) : done
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
  ["Stream.unwrap", fold(Stream.unwrap(Effect.succeed(events)))],
  ["Stream.tap", fold(Stream.tap(events, () => Effect.void))],
  ["Stream.onEnd", fold(Stream.onEnd(events, Effect.void))],
  ["Stream.concat(fromIterable([]), _)", fold(Stream.concat(Stream.fromIterable<string>([]), events))],
  ["toPull, then Stream.fromPull(pull)", fold(pulled(events))],
  ["Stream.interruptWhen(Effect.never)", fold(Stream.interruptWhen(events, Effect.never))],
  [
    "Stream.timeoutOrElse (1 h)",
    fold(Stream.timeoutOrElse(events, { duration: "1 hour", orElse: () => Stream.fail("late") }))
  ],
  [
    "Effect.timeoutOrElse round the fold (1 h)",
    Effect.timeoutOrElse(fold(events), { duration: "1 hour", orElse: () => Effect.fail("late") })
  ],
  ["Stream.catch", fold(Stream.catch(events, () => Stream.empty))],
  [
    "one pull function over toPull (each chunk mapped)",
    fold(pulled(events, (pull) => Effect.map(pull, (chunk) => Arr.map(chunk, (e) => e))))
  ],
  [
    "toPull, each pull under Effect.timeoutOrElse (1 h)",
    fold(pulled(events, (pull) => Effect.timeoutOrElse(pull, { duration: "1 hour", orElse: () => Effect.die("late") })))
  ],
  ["in line: a channel maps the session's stream", fold(inline(events))],
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
