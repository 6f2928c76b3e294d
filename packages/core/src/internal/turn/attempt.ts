import type * as Arr from "effect/Array"
import * as Cause from "effect/Cause"
import * as Chunk from "effect/Chunk"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Pull from "effect/Pull"
import * as Result from "effect/Result"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type * as Agent from "../../Agent.js"
import * as Backend from "../../Backend.js"
import * as Failure from "../../Failure.js"
import { Notice } from "../../Notice.js"
import type * as Place from "../../Place.js"
import { cutAt, forkNow, joinBy } from "./deadline.js"
import { answeredBy, type Delivered, type Kept } from "./kept.js"
import * as State from "./state.js"

type Events = Arr.NonEmptyReadonlyArray<Backend.Event>
type EventPull = Pull.Pull<Events, Failure.Failure>

/**
 * The prompt a turn sends. Its history is laid out as an array only when a backend reads it (a
 * CLI resuming by session id never does), so a long conversation costs a turn nothing until then.
 *
 * @internal
 */
export const promptOf = (
  text: string,
  history: Chunk.Chunk<Backend.Exchange>,
  prefill?: string
): Backend.Prompt => new LaidOut(text, history, prefill)

class LaidOut implements Backend.Prompt {
  constructor(
    readonly text: string,
    private readonly exchanges: Chunk.Chunk<Backend.Exchange>,
    readonly prefill: string | undefined
  ) {}
  get history() {
    return Chunk.toReadonlyArray(this.exchanges)
  }
}

/** How a place is probed: its backend's check, within a time. @internal */
export type Probe = (place: Place.Place, within: Duration.Duration) => Effect.Effect<boolean>

/** What bounds one attempt: where it runs, how its place is probed, and when it started. */
interface Bounds {
  readonly run: State.Run
  readonly place: Place.Place
  readonly probe: Probe
  readonly startedAt: number
  readonly kept: Kept
}

/**
 * One request at a place: open (or reuse) its session, send the prompt and wait for the first
 * real content within the attempt's bounds. Success is the whole answer as a stream: the buffered
 * session events, then everything the backend sends; a failure after that surfaces as it is.
 *
 * @internal
 */
export const attempt = (
  run: State.Run,
  place: Place.Place,
  open: Effect.Effect<Backend.Session, Failure.Failure>,
  probe: Probe,
  prompt: Backend.Prompt,
  kept: Kept,
  delivered?: Delivered
): Effect.Effect<Result.Result<Stream.Stream<Backend.Event, Failure.Failure>, Failure.Failure>> =>
  Effect.gen(function*() {
    State.requested(run)
    const scope = yield* Scope.fork(run.scope!, "sequential")
    const bounds: Bounds = { run, place, probe, startedAt: run.clock.currentTimeMillisUnsafe(), kept }
    const result = yield* firstContent(bounds, open, prompt, scope, delivered).pipe(
      beforeContent(bounds),
      Effect.result
    )
    if (Result.isFailure(result)) yield* Scope.close(scope, Exit.void)
    return result
  })

const millisOr = (limit: Option.Option<Duration.Duration>) =>
  Option.isSome(limit) ? Duration.toMillis(limit.value) : Infinity

/**
 * One request answered whole, by a session's `reply`, started at `now`. The reply is given the
 * time it must end by; the engine races it with its own timer unless the session keeps that
 * time itself. A watchdog watches a reply that keeps its bounds too: a reply shows nothing until
 * it ends, so its place is probed from the start.
 *
 * @internal
 */
export const reply = (
  run: State.Run,
  place: Place.Place,
  session: Backend.Session,
  probe: Probe,
  prompt: Backend.Prompt,
  now: number,
  kept: Kept
): Effect.Effect<ReadonlyArray<Backend.Event>, Failure.Failure> => {
  State.requested(run)
  const options = run.options
  const whole = Math.min(run.deadline, now + millisOr(options.send))
  const by = Math.min(whole, now + millisOr(kept.firstByte))
  const stall = millisOr(kept.idle)
  const call = session.reply!(
    prompt,
    Number.isFinite(stall) ? { by, whole, deadline: run.deadline, stall } : { by, whole, deadline: run.deadline }
  )
  const bounds: Bounds = { run, place, probe, startedAt: now, kept }
  if (session.keepsLimits !== true) return beforeContent(bounds)(call)
  const dog = options.watchdog
  if (Option.isNone(dog)) return call
  return beside(call, () => watchdog(bounds, dog.value, () => now))
}

const firstContent = (
  bounds: Bounds,
  open: Effect.Effect<Backend.Session, Failure.Failure>,
  prompt: Backend.Prompt,
  scope: Scope.Scope,
  delivered: Delivered | undefined
) =>
  Effect.gen(function*() {
    const session = yield* open
    State.noteSession(bounds.run, bounds.place, session.id)
    const pull = yield* Scope.provide(Stream.toPull(session.turn(prompt)), scope)
    const before: Array<Backend.Event> = []
    while (true) {
      const next = yield* Pull.catchDone(pull, () => Effect.succeed(undefined))
      if (next === undefined) return deliver(bounds, session, prompt, before, undefined, delivered)
      const first = next.findIndex(Backend.isContent)
      const upTo = first === -1 ? next.length : first
      for (let i = 0; i < upTo; i++) {
        note(bounds, next[i]!)
        before.push(next[i]!)
      }
      if (first !== -1) {
        for (let i = first; i < next.length; i++) before.push(next[i]!)
        return deliver(bounds, session, prompt, before, pull, delivered)
      }
    }
  })

const note = (bounds: Bounds, event: Backend.Event) => {
  if (event._tag === "SessionStarted") State.noteSession(bounds.run, bounds.place, event.sessionId)
}

/**
 * The answer as the caller sees it: the events buffered before the first content, then the rest
 * of the session's stream, each pull within the bounds that still hold; the exchange joins the
 * conversation once it is whole. One pull that gives the buffered events and then each of the
 * session's, where a Stream operator for each of these costs as much as the session's stream again.
 */
const deliver = (
  bounds: Bounds,
  session: Backend.Session,
  prompt: Backend.Prompt,
  events: ReadonlyArray<Backend.Event>,
  rest: EventPull | undefined,
  delivered: Delivered | undefined
): Stream.Stream<Backend.Event, Failure.Failure> => {
  const run = bounds.run
  let text = ""
  let result: string | undefined = undefined
  const seen = (chunk: Events) => {
    let out = chunk
    for (let i = 0; i < chunk.length; i++) {
      const event = chunk[i]!
      note(bounds, event)
      if (event._tag === "Text") {
        text += event.text
        if (delivered !== undefined) delivered.text += event.text
      } else if (event._tag === "Result") {
        result = (prompt.prefill ?? "") + event.text
        if (event.model === undefined || prompt.prefill !== undefined) {
          const copy: Array<Backend.Event> = [...out]
          copy[i] = answeredBy(event, bounds.place, prompt.prefill)
          out = copy as unknown as Events
        }
      } else if (event._tag === "ToolUse" && delivered !== undefined) delivered.tool = true
    }
    return out
  }
  const ended = Effect.suspend(() => {
    State.answered(
      run,
      prompt.text,
      result ?? (prompt.prefill ?? "") + text,
      session.keepsConversation
    )
    return Cause.done()
  })
  const dog = run.options.watchdog
  let moved = bounds.startedAt
  const limited = rest === undefined ? undefined : afterContent(bounds, rest)
  const pulled = limited === undefined || Option.isNone(dog)
    ? limited
    : beside(limited, () => watchdog(bounds, dog.value, () => moved))
  const later: EventPull = pulled === undefined
    ? ended
    : Pull.catchDone(
      Effect.map(pulled, (chunk) => {
        moved = run.clock.currentTimeMillisUnsafe()
        return seen(chunk)
      }),
      () => ended
    )
  let buffered: Events | undefined = events.length > 0 ? events as Events : undefined
  const next: EventPull = Effect.suspend(() => {
    if (buffered === undefined) return later
    const out = buffered
    buffered = undefined
    return Effect.succeed(seen(out))
  })
  return Stream.fromPull(Effect.succeed(next))
}

const sendCeiling = (bounds: Bounds, after: Duration.Duration) =>
  new Failure.Timeout({ place: bounds.place, said: Failure.said("send ceiling"), phase: "whole-send", after })

/**
 * The bounds on an attempt before its first content: first byte (no later than the deadline) and
 * send ceiling, as one cut at the earlier; the watchdog.
 */
const beforeContent =
  (bounds: Bounds) => <A>(self: Effect.Effect<A, Failure.Failure>): Effect.Effect<A, Failure.Failure> => {
    const { place, run, startedAt } = bounds
    const options = run.options
    const firstByte = Math.min(Math.max(0, run.deadline - startedAt), millisOr(bounds.kept.firstByte))
    const ceiling = millisOr(options.send)
    const out = cutAt(
      self,
      startedAt + Math.min(firstByte, ceiling),
      (): Failure.Failure =>
        ceiling < firstByte
          ? sendCeiling(bounds, Duration.millis(ceiling))
          : new Failure.Timeout({
            place,
            said: Failure.said("no first byte"),
            phase: "first-byte",
            after: Duration.millis(firstByte)
          })
    )
    const dog = options.watchdog
    return Option.isSome(dog) ? beside(out, () => watchdog(bounds, dog.value, () => startedAt)) : out
  }

/**
 * The bounds on an answer already streaming, kept on each pull: the turn's deadline and the send
 * ceiling still hold, a stream quiet for the idle limit ends as Unresponsive (announced at half of
 * it); each fails it with what was delivered, and nothing moves. A pull is one fiber waited for
 * until the next of these times.
 */
const afterContent = (bounds: Bounds, pull: EventPull): EventPull => {
  const { place, run } = bounds
  const { clock, options } = run
  const ceiling = bounds.startedAt + millisOr(options.send)
  const idle = millisOr(bounds.kept.idle)
  if (!Number.isFinite(Math.min(run.deadline, ceiling, idle))) return pull
  let moved = clock.currentTimeMillisUnsafe()
  let told = -1
  /** What the time `now` ends the answer with, if anything. */
  const ended = (now: number): Failure.Failure | undefined =>
    now >= run.deadline
      ? new Failure.Timeout({
        place,
        said: Failure.said("the turn's deadline"),
        phase: "whole-send",
        after: Duration.millis(run.deadline - run.startedAt)
      })
      : now >= ceiling
      ? sendCeiling(bounds, Duration.millis(ceiling - bounds.startedAt))
      : now - moved >= idle
      ? new Failure.Unresponsive({
        place,
        said: Failure.said(`sent nothing for ${Duration.format(Duration.millis(now - moved))} after its answer began`)
      })
      : undefined
  const waited = (fiber: Fiber.Fiber<Events, Failure.Failure | Cause.Done>): EventPull =>
    Effect.flatMap(
      joinBy(fiber, Math.min(run.deadline, ceiling, moved + idle, told === moved ? Infinity : moved + idle / 2)),
      (got) => {
        const now = clock.currentTimeMillisUnsafe()
        if (Option.isSome(got)) {
          moved = now
          return Effect.succeed(got.value)
        }
        const failure = ended(now)
        if (failure !== undefined) return Effect.andThen(Fiber.interrupt(fiber), Effect.fail(failure))
        // a timer that woke a little early (the live clock) does not announce the quiet again
        if (told === moved) return waited(fiber)
        told = moved
        return Effect.andThen(
          run.notices.publish(
            Notice.Stalled({ place, quiet: Duration.millis(now - moved), limit: Duration.millis(idle) })
          ),
          waited(fiber)
        )
      }
    )
  return Effect.suspend(() => {
    const failure = ended(clock.currentTimeMillisUnsafe())
    if (failure !== undefined) return Effect.fail(failure)
    return Effect.flatMap(forkNow(pull), (fiber) => {
      const exit = fiber.pollUnsafe()
      if (exit === undefined) return waited(fiber)
      moved = clock.currentTimeMillisUnsafe()
      return exit
    })
  })
}

/**
 * `self`, and beside it, once `self` has to wait, `dog`: the first of them to end ends both.
 * `self` starts at once on a fiber of its own, so one that ends without waiting starts no dog.
 */
const beside = <A, E>(self: Effect.Effect<A, E>, dog: () => Effect.Effect<never, E>): Effect.Effect<A, E> =>
  Effect.flatMap(forkNow(self), (fiber): Effect.Effect<A, E> => {
    const done = fiber.pollUnsafe()
    if (done !== undefined) return done
    return Effect.flatMap(
      forkNow(dog()),
      (watching) =>
        Effect.raceFirst(Fiber.join(fiber), Fiber.join(watching)).pipe(
          Effect.onExit(() => Effect.andThen(Fiber.interrupt(watching), Fiber.interrupt(fiber)))
        )
    )
  })

/**
 * Probes a place once nothing has moved for `every` (counted from `moved()` or the last good
 * probe); a failed probe is retried after `retry`, and `failures` failed probes in a row fail the
 * attempt as Unresponsive.
 */
const watchdog = (bounds: Bounds, dog: Agent.Watchdog, moved: () => number): Effect.Effect<never, Failure.Failure> =>
  Effect.gen(function*() {
    const { place, probe, run } = bounds
    let checked = moved()
    let failed = 0
    while (true) {
      if (failed === 0) {
        const due = Math.max(moved(), checked) + Duration.toMillis(dog.every)
        const now = yield* Clock.currentTimeMillis
        if (now < due) {
          yield* Effect.sleep(Duration.millis(due - now))
          continue
        }
      }
      if (yield* probe(place, dog.within)) {
        failed = 0
        checked = yield* Clock.currentTimeMillis
        continue
      }
      failed += 1
      const quiet = Duration.millis((yield* Clock.currentTimeMillis) - moved())
      yield* run.notices.publish(Notice.Probing({ place, quiet, failed, of: dog.failures }))
      if (failed >= dog.failures) {
        return yield* new Failure.Unresponsive({ place, said: Failure.said(`${failed} probes failed`) })
      }
      yield* Effect.sleep(dog.retry)
    }
  })
