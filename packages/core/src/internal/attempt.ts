import * as Channel from "effect/Channel"
import * as Chunk from "effect/Chunk"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as DefaultServices from "effect/DefaultServices"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
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

/**
 * The stream `make` gives, made in a scope of its own that closes when the stream ends: the same
 * as `Stream.unwrapScoped`, without the concatAll that runs the made stream as a stream of
 * streams, which costs a fifth of a bare stream again.
 *
 * @internal
 */
export const scopedStream = <A, E>(make: Effect.Effect<Stream.Stream<A, E>, E, Scope.Scope>): Stream.Stream<A, E> =>
  Stream.fromChannel(Channel.unwrap(Effect.map(Scope.make(), (scope) =>
    Channel.ensuringWith(
      Channel.unwrap(Effect.map(Scope.extend(make, scope), Stream.toChannel)),
      (exit) => Scope.close(scope, exit)
    ))))

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
 * time itself, so a reply that keeps it costs no fiber. A watchdog watches a reply that keeps
 * its limits too: a reply shows nothing until it ends, so its place is probed from the start.
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
  if (session.keepsLimits !== true) return beforeContent({ run, place, probe, startedAt: now })(call)
  if (Option.isNone(options.watchdog)) return call
  return Effect.raceFirst(call, watchdog({ run, place, probe, startedAt: now }, options.watchdog.value, () => now))
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
      if (Option.isNone(next)) {
        return deliver(limits, session, prompt, before, Option.none())
      }
      const chunk = next.value
      const first = Chunk.findFirstIndex(chunk, Backend.isContent)
      for (
        const event of Option.match(first, {
          onNone: () =>
            chunk,
          onSome: (i) => Chunk.take(chunk, i)
        })
      ) {
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
 * The answer as the caller sees it: the events buffered before the first content, then the rest
 * of the session's stream, each pull within the limits that still hold; the exchange joins the
 * conversation once it is whole. One channel that writes the buffered events and then each pull,
 * where a Stream operator for each of these (concat, tap, onEnd, interruptWhen) costs as much as
 * the session's whole stream again.
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
  let result: string | undefined = undefined
  const seen = (chunk: Chunk.Chunk<Backend.Event>) => {
    for (const event of chunk) {
      note(limits, event)
      if (event._tag === "Text") text += event.text
      else if (event._tag === "Result") result = event.text
    }
    return chunk
  }
  const ended = Effect.sync(() => {
    if (session.keepsConversation !== true) {
      run.state.history = Chunk.append(run.history, { prompt: prompt.text, answer: result ?? text })
    }
    return Channel.void
  })
  type Out = Channel.Channel<Chunk.Chunk<Backend.Event>, unknown, Failure.Failure, unknown, unknown, unknown>
  const pull: Pull = Option.isSome(rest) ? afterContent(limits, rest.value) : Effect.fail(Option.none())
  const more: Out = Channel.unwrap(Effect.matchEffect(pull, {
    onFailure: (end) => Option.isNone(end) ? ended : Effect.fail(end.value),
    onSuccess: (chunk) => Effect.succeed(Channel.zipRight(Channel.write(seen(chunk)), more))
  }))
  const answer = Stream.fromChannel(
    events.length === 0 ?
      more :
      Channel.suspend(() => Channel.zipRight(Channel.write(seen(Chunk.unsafeFromArray(events))), more))
  )
  return Option.isSome(rest) && Option.isSome(limits.run.options.watchdog) ? watched(limits, answer) : answer
}

const sendCeiling = (limits: Limits, after: Duration.Duration) =>
  new Failure.Timeout({ place: limits.place, said: Failure.said("send ceiling"), phase: "whole-send", after })

// The timers of the platform the engine runs on (Node, Bun, Deno, a browser all have them).
declare const setTimeout: (run: () => void, millis: number) => unknown
declare const clearTimeout: (timer: unknown) => void

/** The clock a program has unless it installs one (a test installs the TestClock). */
const liveClock = Context.get(DefaultServices.liveServices, Clock.Clock)

/**
 * Waits for `fiber` until `at` (the run's clock millis): its result, or None when the time came
 * first (the fiber still running). On the live clock, one setTimeout beside the fiber's observer;
 * on another clock (the TestClock), or for a wait longer than a platform timer holds, a timeout
 * on the clock. Interrupting the wait interrupts the
 * fiber.
 */
const joinBy = <A, E>(
  fiber: Fiber.RuntimeFiber<A, E>,
  clock: Clock.Clock,
  at: number
): Effect.Effect<Option.Option<A>, E> => {
  if (!Number.isFinite(at)) return Effect.asSome(Fiber.join(fiber))
  // A platform timer holds at most 2^31 - 1 ms (about 24.8 days; Node fires a longer one at once):
  // a longer wait is the clock's.
  if (clock !== liveClock || at - clock.unsafeCurrentTimeMillis() > 2_147_483_647) {
    return Effect.suspend(() =>
      Effect.timeoutOption(Fiber.join(fiber), Duration.millis(Math.max(0, at - clock.unsafeCurrentTimeMillis())))
    ).pipe(Effect.onInterrupt(() => Fiber.interrupt(fiber)))
  }
  return Effect.async<Option.Option<A>, E>((resume) => {
    let done = false
    const timer = setTimeout(() => {
      if (done) return
      done = true
      resume(Effect.succeedNone)
    }, Math.max(0, at - clock.unsafeCurrentTimeMillis()))
    fiber.addObserver((exit) => {
      if (done) return
      done = true
      clearTimeout(timer)
      resume(Exit.map(exit, Option.some))
    })
    return Effect.suspend(() => {
      done = true
      clearTimeout(timer)
      return Fiber.interrupt(fiber)
    })
  })
}

/**
 * `effect` run at once on a fiber of its own, which goes on by itself only once it has to wait:
 * an effect that ends without waiting (a session's stream already there) has ended when this
 * returns, with no hop through the scheduler and no timer, where `Effect.fork` starts the fiber
 * only on the scheduler's next turn, and its join on the one after.
 */
const started = <A, E>(effect: Effect.Effect<A, E>): Effect.Effect<Fiber.RuntimeFiber<A, E>> =>
  Effect.map(Effect.runtime<never>(), (runtime) => Runtime.runFork(runtime, effect))

/**
 * `effect` cut at `at` (the run's clock millis) with `late()`'s failure, the effect interrupted
 * first: one fiber started at once (see `started`) and, only when it has to wait, one timer,
 * where `Effect.timeoutFail` forks two fibers and sleeps in one, several times a turn's own cost.
 */
const cutAt = <A, E>(effect: Effect.Effect<A, E>, clock: Clock.Clock, at: number, late: () => E): Effect.Effect<A, E> =>
  Number.isFinite(at)
    ? Effect.flatMap(started(effect), (fiber) => fiber.unsafePoll() ?? cutFiberAt(fiber, clock, at, late))
    : effect

const cutFiberAt = <A, E>(fiber: Fiber.RuntimeFiber<A, E>, clock: Clock.Clock, at: number, late: () => E) =>
  Effect.flatMap(joinBy(fiber, clock, at), (got) =>
    Option.isSome(got)
      ? Effect.succeed(got.value)
      : Effect.zipRight(Fiber.interrupt(fiber), Effect.fail(late())))

/**
 * The limits on an attempt before its first content: first byte (no later than the deadline) and
 * send ceiling, as one timer at the earlier; the watchdog.
 */
const beforeContent =
  (limits: Limits) => <A>(self: Effect.Effect<A, Failure.Failure>): Effect.Effect<A, Failure.Failure> => {
    const { place, run, startedAt } = limits
    const options = run.options
    const left = Math.max(0, run.deadline - startedAt)
    const firstByte = Math.min(
      left,
      Option.match(options.firstByte, { onNone: () => Infinity, onSome: Duration.toMillis })
    )
    const ceiling = Option.isSome(options.send) ? Duration.toMillis(options.send.value) : Infinity
    let out = cutAt(
      self,
      run.clock,
      startedAt + Math.min(firstByte, ceiling),
      () =>
        ceiling < firstByte
          ? sendCeiling(limits, options.send.pipe(Option.getOrThrow))
          : new Failure.Timeout({
            place,
            said: Failure.said("no first byte"),
            phase: "first-byte",
            after: Duration.millis(firstByte)
          })
    )
    if (Option.isSome(options.watchdog)) {
      out = Effect.raceFirst(
        out,
        watchdog(limits, options.watchdog.value, () => startedAt)
      )
    }
    return out
  }

/**
 * The limits on an answer already streaming, kept on each pull: the turn's deadline and the send
 * ceiling still hold, a stream quiet for the idle limit ends as Unresponsive (announced at half of
 * it); each fails it with what was delivered, and nothing moves. The deadline keeps a stream that
 * stalls after its first content from running unbounded. A pull is one forked fiber waited for
 * under one timer, set to the next of these times; a Stream.interruptWhen for them costs several
 * times the session's whole stream.
 */
const afterContent = (limits: Limits, pull: Pull): Pull => {
  const { place, run } = limits
  const { clock, options } = run
  const ceiling = Option.isSome(options.send) ? limits.startedAt + Duration.toMillis(options.send.value) : Infinity
  const idle = Option.match(options.idle, { onNone: () => Infinity, onSome: Duration.toMillis })
  if (!Number.isFinite(Math.min(run.deadline, ceiling, idle))) return pull
  let moved = clock.unsafeCurrentTimeMillis()
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
      ? sendCeiling(limits, options.send.pipe(Option.getOrThrow))
      : now - moved >= idle
      ? new Failure.Unresponsive({
        place,
        said: Failure.said(`sent nothing for ${Duration.format(Duration.millis(now - moved))} after its answer began`)
      })
      : undefined
  const waited = (fiber: Fiber.RuntimeFiber<Chunk.Chunk<Backend.Event>, Option.Option<Failure.Failure>>): Pull =>
    Effect.flatMap(
      joinBy(fiber, clock, Math.min(run.deadline, ceiling, moved + idle, told === moved ? Infinity : moved + idle / 2)),
      (got) => {
        const now = clock.unsafeCurrentTimeMillis()
        if (Option.isSome(got)) {
          moved = now
          return Effect.succeed(got.value)
        }
        const failure = ended(now)
        if (failure !== undefined) return Effect.zipRight(Fiber.interrupt(fiber), Effect.fail(Option.some(failure)))
        told = moved
        return Effect.zipRight(
          run.notices.publish(
            Notice.Stalled({ place, quiet: Duration.millis(now - moved), limit: Duration.millis(idle) })
          ),
          waited(fiber)
        )
      }
    )
  return Effect.suspend(() => {
    const failure = ended(clock.unsafeCurrentTimeMillis())
    if (failure !== undefined) return Effect.fail(Option.some(failure))
    return Effect.flatMap(started(pull), (fiber) => {
      const exit = fiber.unsafePoll()
      if (exit === null) return waited(fiber)
      moved = clock.unsafeCurrentTimeMillis()
      return exit
    })
  })
}

/** A stream that stops moving after its first content is probed, and fails as Unresponsive. */
const watched = (limits: Limits, answer: Stream.Stream<Backend.Event, Failure.Failure>) => {
  let moved = limits.startedAt
  return Stream.interruptWhen(
    Stream.tap(answer, () => Effect.map(Clock.currentTimeMillis, (now) => void (moved = now))),
    watchdog(limits, limits.run.options.watchdog.pipe(Option.getOrThrow), () => moved)
  )
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
