/**
 * The in-process world the engine benches run in: a backend that answers at once (or fails with
 * ModelNotFound, a kind that moves at once, at places whose model starts with `down`), a chain of places in
 * memory, and health whose breaker never parks, so every turn fails over the same way. It counts
 * the sessions opened, notices published and health writes.
 */
import { Backend, Failure, Health, Notice, Place, Steps } from "@fallback/core"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"

const events = [
  Backend.Event.SessionStarted({ sessionId: "bench" }),
  Backend.Event.Text({ text: "ok" }),
  Backend.Event.Result({ text: "ok", usage: { input: 1, output: 1 } })
]

/** The answer, as a stream that is already there. */
export const answering: Stream.Stream<Backend.Event, Failure.Failure> = Stream.fromIterable(events)

/**
 * The session every place opens: it answers at once, or fails at a `down…` model, as a stream or
 * whole (the whole reply a promise that is already settled, as the peers' model is), and keeps its
 * conversation itself, as a CLI does. Its reply never waits, so it keeps any limit it is given;
 * `timed` says the engine times it all the same, as it does a reply that could wait.
 */
export const session = (place: Place.Place, timed = false): Backend.Session => {
  if (!place.model.startsWith("down")) return { ...up, keepsLimits: !timed }
  const failure = new Failure.ModelNotFound({ place, said: Failure.said("bench down") })
  const down = Stream.fail(failure)
  const reply = Effect.tryPromise({ try: () => Promise.reject(failure), catch: () => failure })
  return { id: "bench", turn: () => down, reply: () => reply, keepsLimits: !timed, keepsConversation: true }
}

const answered = Effect.tryPromise({
  try: () => Promise.resolve(events),
  catch: (cause) =>
    new Failure.Unknown({ place: Place.Place.make({ cli: "bench", model: "up" }), said: Failure.said(String(cause)) })
})
const up: Backend.Session = { id: "bench", turn: () => answering, reply: () => answered, keepsConversation: true }

/** How many sessions were opened: a stand-in counted once per agent that needed it. */
export const opened = { count: 0 }

/** How many notices were published: none on a turn that lands. */
export const heard = { count: 0 }

const counted = Layer.succeed(Notice.Notices, {
  publish: () => Effect.sync(() => void (heard.count += 1)),
  watch: Effect.succeed(Stream.empty)
})

/** The in-process backend for `cli`; `timed`: the engine times its replies. */
export const instant = (cli: string, timed = false): Backend.Backend => ({
  cli,
  capabilities: { webSearchOff: true, callbacks: true, resume: true, models: [] },
  open: (place) => Effect.sync(() => (opened.count += 1, session(place, timed)))
})

/** How many times health was written (a success after failures, or a failure). */
export const written = { count: 0 }

const counting = (breaker: Health.Breaker) =>
  Layer.effect(
    Health.Health,
    Effect.map(Effect.provide(Health.Health, Health.Health.layerMemory(breaker)), (health) =>
      Health.Health.of({
        ...health,
        succeeded: (place) => Effect.andThen(Effect.sync(() => void (written.count += 1)), health.succeeded(place)),
        failed: (place, failed) =>
          Effect.andThen(Effect.sync(() => void (written.count += 1)), health.failed(place, failed))
      }))
  )

/** A breaker that never parks: a bench fails over on every turn, not once. */
const neverParks: Health.Breaker = { failures: Number.MAX_SAFE_INTEGER, park: Duration.seconds(1) }

/** The steps of one chain: each place points at the next. */
export const chain = (places: ReadonlyArray<string>): Array<readonly [string, string]> =>
  places.slice(1).map((place, i) => [places[i]!, place] as const)

/**
 * The world: instant backends for the places' CLIs (`timed`: the engine times their replies), the
 * steps written in memory, health in memory.
 */
export const world = (steps: ReadonlyArray<readonly [string, string]>, timed = false) => {
  const clis = [...new Set(steps.flat().map((place) => place.slice(0, place.search(/[@/]/))))]
  const written = Layer.effectDiscard(
    Effect.gen(function*() {
      const store = yield* Steps.Steps
      for (const [from, to] of steps) yield* store.points(from, to)
    }).pipe(Effect.orDie)
  )
  return Layer.provideMerge(
    written,
    Layer.mergeAll(
      Backend.Backends.layer(clis.map((cli) => instant(cli, timed))),
      Steps.Steps.layerMemory,
      counting(neverParks),
      counted
    )
  )
}
