import * as Chunk from "effect/Chunk"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type * as Agent from "../Agent.js"
import * as Backend from "../Backend.js"
import * as Failure from "../Failure.js"
import { Notice } from "../Notice.js"
import * as Place from "../Place.js"
import type { Run } from "./run.js"

type Pull = Effect.Effect<Chunk.Chunk<Backend.Event>, Option.Option<Failure.Failure>>

/**
 * The prompt a turn sends. Its history is laid out as an array only when a backend reads it (a
 * CLI resuming by session id never does), so a long conversation costs a turn nothing until then.
 *
 * @internal
 */
export const promptOf = (text: string, history: Chunk.Chunk<Backend.Exchange>): Backend.Prompt =>
  new LaidOut(text, history)

class LaidOut implements Backend.Prompt {
  constructor(readonly text: string, private readonly exchanges: Chunk.Chunk<Backend.Exchange>) {}
  get history() {
    return Chunk.toReadonlyArray(this.exchanges)
  }
}

/** How a place is probed: its backend's check, within a time. */
export type Probe = (place: Place.Place, within: Duration.Duration) => Effect.Effect<boolean>

/** What bounds one attempt: where it runs, how its place is probed, and when it started. */
interface Limits {
  readonly run: Run
  readonly place: Place.Place
  readonly probe: Probe
  readonly startedAt: number
}

/**
 * One request at a place: open (or reuse) its session, send the prompt and wait for the first
 * real content within the attempt's limits. Success is the whole answer as a stream: the buffered
 * session events, then everything the backend sends; a failure after that surfaces as it is.
 *
 * @internal
 */
export const attempt = (
  run: Run,
  place: Place.Place,
  open: Effect.Effect<Backend.Session, Failure.Failure>,
  probe: Probe,
  prompt: Backend.Prompt
): Effect.Effect<Either.Either<Stream.Stream<Backend.Event, Failure.Failure>, Failure.Failure>> =>
  Effect.gen(function*() {
    run.attempts += 1
    const scope = yield* Scope.fork(run.scope!, ExecutionStrategy.sequential)
    const limits: Limits = { run, place, probe, startedAt: run.clock.unsafeCurrentTimeMillis() }
    const result = yield* firstContent(limits, open, prompt, scope).pipe(beforeContent(limits), Effect.either)
    if (Either.isLeft(result)) yield* Scope.close(scope, Exit.void)
    return result
  })

const millisOr = (limit: Option.Option<Duration.Duration>) =>
  Option.isSome(limit) ? Duration.toMillis(limit.value) : Infinity

/**
 * One request answered whole, by a session's `reply`, started at `now`. The reply is given the
 * time it must end by; the engine races it with its own timer unless the session keeps that
 * time itself, so a reply that keeps it costs no fiber.
 *
 * @internal
 */
export const reply = (
  run: Run,
  place: Place.Place,
  session: Backend.Session,
  probe: Probe,
  prompt: Backend.Prompt,
  now: number
): Effect.Effect<ReadonlyArray<Backend.Event>, Failure.Failure> => {
  run.attempts += 1
  const options = run.options
  const whole = Math.min(run.deadline, now + millisOr(options.send))
  const by = Math.min(whole, now + millisOr(options.firstByte))
  const call = session.reply!(prompt, { by, whole, deadline: run.deadline })
  return session.keepsLimits === true ? call : beforeContent({ run, place, probe, startedAt: now })(call)
}

const firstContent = (
  limits: Limits,
  open: Effect.Effect<Backend.Session, Failure.Failure>,
  prompt: Backend.Prompt,
  scope: Scope.Scope
) =>
  Effect.gen(function*() {
    const run = limits.run
    const session = yield* open
    run.state.conversations.set(Place.format(limits.place), session.id)
    const pull: Pull = yield* Scope.extend(Stream.toPull(session.turn(prompt)), scope)
    const before: Array<Backend.Event> = []
    while (true) {
      const next = yield* Effect.catchAll(Effect.map(pull, Option.some), (end) =>
        Option.match(end, { onNone: () => Effect.succeed(Option.none()), onSome: Effect.fail }))
      if (Option.isNone(next)) return deliver(limits, session, prompt, before, Option.none())
      const chunk = next.value
      const first = Chunk.findFirstIndex(chunk, Backend.isContent)
      for (const event of Option.match(first, { onNone: () => chunk, onSome: (i) => Chunk.take(chunk, i) })) {
        note(limits, event)
        before.push(event)
      }
      if (Option.isSome(first)) {
        return deliver(limits, session, prompt, [...before, ...Chunk.drop(chunk, first.value)], Option.some(pull))
      }
    }
  })

const note = (limits: Limits, event: Backend.Event) => {
  if (event._tag === "SessionStarted") limits.run.state.conversations.set(Place.format(limits.place), event.sessionId)
}

/**
 * The answer as the caller sees it, within the send ceiling and watched for a stall; the exchange
 * joins the conversation once it is whole.
 */
const deliver = (
  limits: Limits,
  session: Backend.Session,
  prompt: Backend.Prompt,
  events: ReadonlyArray<Backend.Event>,
  rest: Option.Option<Pull>
) => {
  const run = limits.run
  let text = ""
  let result = Option.none<string>()
  const tail = Option.match(rest, { onNone: () => Stream.empty, onSome: Stream.repeatEffectChunkOption })
  const answer = Stream.concat(Stream.fromIterable(events), tail).pipe(
    Stream.tap((event) =>
      Effect.sync(() => {
        note(limits, event)
        if (event._tag === "Text") text += event.text
        if (event._tag === "Result") result = Option.some(event.text)
      })
    ),
    Stream.onEnd(Effect.sync(() => {
      if (session.keepsConversation === true) return
      run.state.history = Chunk.append(run.history, { prompt: prompt.text, answer: Option.getOrElse(result, () => text) })
    }))
  )
  return Option.isNone(rest) ? answer : afterContent(limits, answer)
}

const sendCeiling = (limits: Limits, after: Duration.Duration) =>
  new Failure.Timeout({ place: limits.place, said: Failure.said("send ceiling"), phase: "whole-send", after })

/** The limits on an attempt before its first content: first byte, send ceiling, watchdog, deadline. */
const beforeContent = (limits: Limits) => <A>(self: Effect.Effect<A, Failure.Failure>): Effect.Effect<A, Failure.Failure> => {
  const { place, run, startedAt } = limits
  const options = run.options
  const left = Math.max(0, run.deadline - startedAt)
  const firstByte = Math.min(left, Option.match(options.firstByte, { onNone: () => Infinity, onSome: Duration.toMillis }))
  let out = Effect.timeoutFail(self, {
    duration: Duration.millis(firstByte),
    onTimeout: () =>
      new Failure.Timeout({ place, said: Failure.said("no first byte"), phase: "first-byte", after: Duration.millis(firstByte) })
  })
  if (Option.isSome(options.send)) {
    const after = options.send.value
    out = Effect.timeoutFail(out, { duration: after, onTimeout: () => sendCeiling(limits, after) })
  }
  if (Option.isSome(options.watchdog)) out = Effect.raceFirst(out, watchdog(limits, options.watchdog.value, () => startedAt))
  return out
}

/**
 * The limits on an answer already streaming: the turn's deadline and the send ceiling still hold,
 * and a stream that stops moving is probed; each fails it with what was delivered, and nothing
 * moves. The deadline keeps a stream that stalls after its first content from running unbounded.
 */
const afterContent = (limits: Limits, answer: Stream.Stream<Backend.Event, Failure.Failure>) => {
  const options = limits.run.options
  const { place, run } = limits
  let out = answer
  if (Number.isFinite(run.deadline)) {
    const budget = Duration.millis(run.deadline - run.startedAt)
    const deadline = Effect.flatMap(Clock.currentTimeMillis, (now) =>
      Effect.andThen(
        Effect.sleep(Duration.millis(Math.max(0, run.deadline - now))),
        Effect.fail(
          new Failure.Timeout({ place, said: Failure.said("the turn's deadline"), phase: "whole-send", after: budget })
        )
      ))
    out = Stream.interruptWhen(out, deadline)
  }
  if (Option.isSome(options.send)) {
    const after = options.send.value
    const ceiling = Effect.flatMap(Clock.currentTimeMillis, (now) =>
      Effect.andThen(
        Effect.sleep(Duration.millis(limits.startedAt + Duration.toMillis(after) - now)),
        Effect.fail(sendCeiling(limits, after))
      ))
    out = Stream.interruptWhen(out, ceiling)
  }
  if (Option.isSome(options.watchdog)) {
    let moved = limits.startedAt
    out = Stream.interruptWhen(
      Stream.tap(out, () => Effect.map(Clock.currentTimeMillis, (now) => void (moved = now))),
      watchdog(limits, options.watchdog.value, () => moved)
    )
  }
  return out
}

/**
 * Probes a place once nothing has moved for `every` (counted from `moved()` or the last good
 * probe); a failed probe is retried after `retry`, and `failures` failed probes in a row fail the
 * attempt as Unresponsive.
 */
const watchdog = (limits: Limits, dog: Agent.Watchdog, moved: () => number): Effect.Effect<never, Failure.Failure> =>
  Effect.gen(function*() {
    const { place, probe, run } = limits
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
