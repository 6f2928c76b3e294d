import type * as Clock from "effect/Clock"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Accounts from "../../Accounts.js"
import type * as Agent from "../../Agent.js"
import * as Backend from "../../Backend.js"
import { Compactor } from "../../Compactor.js"
import type * as Failure from "../../Failure.js"
import * as Health from "../../Health.js"
import { Notices } from "../../Notice.js"
import type * as Place from "../../Place.js"
import type * as Settings from "../../Settings.js"
import { Steps } from "../../Steps.js"
import * as telemetry from "../telemetry/index.js"
import { type Admitted, atPlace, type Request } from "./atPlace.js"
import { attempt, type Probe, promptOf, reply as replyAttempt } from "./attempt.js"
import { check } from "./candidates.js"
import { type Answering, type Cutting, guarded } from "./cut.js"
import { answeredBy, type Delivered, type Kept, keptAt } from "./kept.js"
import * as StandIns from "./standIns.js"
import * as Run from "./state.js"
import { walk, type Walker } from "./walk.js"

/**
 * An agent: its state from turn to turn, the sessions it holds, and its two ways of taking a
 * turn (a stream, or a whole reply), each the goes at its first place and then the walk.
 *
 * @internal
 */
export const make = Effect.fnUntraced(function*(
  origin: Place.Place,
  settings: Settings.Settings,
  options: Agent.Options
) {
  const backends = yield* Backend.Backends
  const steps = yield* Steps
  const health = yield* Health.Health
  const accounts = yield* Effect.serviceOption(Accounts.Accounts)
  const compactor = yield* Effect.serviceOption(Compactor)
  const notices = telemetry.observed(yield* Notices)
  const scope = yield* Effect.scope

  const state = Run.initial(origin)
  const standIns = StandIns.make({ backends, accounts, settings, scope })
  const walker: Walker = { health, steps, compactor, standIns, origin, settings, accounts }

  const newRun = (
    clock: Clock.Clock,
    services: Context.Context<never>,
    startedAt: number,
    scope: Scope.Scope | undefined
  ) => Run.start(state, options, notices, clock, services, startedAt, scope)

  const startOf = () => Run.startOf(state, options, origin)

  const kept = { http: keptAt(options, "http"), cli: keptAt(options, "cli") }
  /** The first byte's and the stall's limits at a place, by the kind of its backend. */
  const keptOf = (place: Place.Place): Kept => {
    const backend = standIns.backendOf(place)
    return Result.isSuccess(backend) && backend.success.kind === "http" ? kept.http : kept.cli
  }

  /**
   * The whole turn from its first place: that place, then the walk. An answer picked up somewhere
   * else starts with the moves that took it there (`moved` puts them in front of it).
   */
  const whole = <A>(
    run: Run.Run,
    start: Place.Place,
    text: string,
    go: Request<A>,
    moved: (moves: ReadonlyArray<Backend.Event>, answer: A) => A,
    entry: Admitted<A> | undefined
  ) =>
    Effect.flatMap(
      atPlace(walker, run, start, "start", undefined, text, go, entry),
      (first) =>
        first._tag === "Answered"
          ? Effect.succeed(first.answer)
          : Effect.map(walk(walker, run, start, first, text, go), ({ answer, moves, place }) => {
            Run.movedTo(run, place)
            return moves.length === 0 ? answer : moved(moves, answer)
          })
    )

  const streamMoved = (moves: ReadonlyArray<Backend.Event>, answer: Answering) =>
    Stream.concat(Stream.fromIterable(moves), answer)

  const wholeMoved = (
    moves: ReadonlyArray<Backend.Event>,
    answer: Effect.Effect<ReadonlyArray<Backend.Event>, Failure.Failure>
  ) => Effect.map(answer, (events) => [...moves, ...events])

  const probe: Probe = (place, within) =>
    Result.match(standIns.backendOf(place), {
      onFailure: () => Effect.succeed(false),
      onSuccess: (backend) => check(backend, place, within)
    })

  const cutting: Cutting = { walker, keptAt: keptOf, probe }

  /**
   * A streamed request: its answer, once content reached the caller, is guarded, so that a failure
   * after it is continued at the next place or ends the turn as a Cut with what was delivered.
   */
  const streamed = (text: string, delivered: Delivered): Request<Answering> => (run, place, prompt) =>
    Effect.map(
      attempt(run, place, standIns.hold(place), probe, prompt, keptOf(place), delivered),
      (result) =>
        Result.isFailure(result)
          ? result
          : Result.succeed(guarded(cutting, run, place, text, delivered, result.success))
    )

  const turn = (text: string): Answering =>
    Stream.unwrap(Effect.gen(function*() {
      const clock = yield* Effect.clockWith(Effect.succeed)
      const run = newRun(clock, yield* Effect.context<never>(), clock.currentTimeMillisUnsafe(), yield* Effect.scope)
      const start = startOf()
      const delivered: Delivered = { text: "", tool: false }
      return yield* telemetry.streamedTurn(
        run,
        start,
        whole(run, start, text, streamed(text, delivered), streamMoved, undefined),
        () => settled(run)
      )
    }))

  /**
   * Whether a session's turn is taken by its `reply`: when it keeps its limits itself, or when the
   * engine can time it fairly. A reply's first content is the whole of it, so a reply the engine
   * times is bounded by the first byte's limit too: a long answer would be cut short. The engine
   * times a reply itself only when the agent sets no first-byte limit and no watchdog; otherwise
   * the turn reads the session's stream, where the first content is seen when it comes.
   */
  const repliesWhole = (place: Place.Place, session: Backend.Session) =>
    session.reply !== undefined &&
    (session.keepsLimits === true || (Option.isNone(keptOf(place).firstByte) && Option.isNone(options.watchdog)))

  /** A whole reply that came: its session is noted and the exchange joins the conversation. */
  const landed = (
    run: Run.Run,
    place: Place.Place,
    session: Backend.Session,
    prompt: Backend.Prompt,
    events: ReadonlyArray<Backend.Event>
  ) => {
    let id = session.id
    for (const event of events) if (event._tag === "SessionStarted") id = event.sessionId
    Run.noteSession(run, place, id)
    Run.answered(run, prompt.text, Backend.textOf(events), session.keepsConversation)
    return stamped(events, place)
  }

  /** The events of a whole reply, its result stamped with the model that answered where it did not say. */
  const stamped = (events: ReadonlyArray<Backend.Event>, place: Place.Place) => {
    const at = events.findIndex((event) => event._tag === "Result" && event.model === undefined)
    if (at === -1) return events
    const out = [...events]
    out[at] = answeredBy(out[at] as Extract<Backend.Event, { readonly _tag: "Result" }>, place)
    return out
  }

  /**
   * A request answered whole: by the session's `reply` where it has one, else its stream, the
   * rest of which is read once the first content is there (a failure after that surfaces as it is).
   */
  const collected: Request<Effect.Effect<ReadonlyArray<Backend.Event>, Failure.Failure>> = (run, place, prompt) => {
    const found = standIns.open(place)
    return found === undefined
      ? Effect.flatMap(Effect.result(standIns.hold(place)), (opened) => {
        if (Result.isSuccess(opened)) return collectedAt(run, place, opened.success, prompt)
        Run.requested(run)
        return Effect.succeed(Result.fail(opened.failure))
      })
      : collectedAt(run, place, found, prompt)
  }

  const collectedAt = (run: Run.Run, place: Place.Place, session: Backend.Session, prompt: Backend.Prompt) => {
    const limits = keptOf(place)
    if (!repliesWhole(place, session)) {
      return Effect.andThen(
        Run.ownScope(run),
        Effect.flatMap(attempt(run, place, Effect.succeed(session), probe, prompt, limits), (result) => {
          if (Result.isFailure(result)) return Effect.succeed(Result.fail(result.failure))
          return readWhole(result.success)
        })
      )
    }
    return Effect.matchEffect(
      replyAttempt(run, place, session, probe, prompt, run.clock.currentTimeMillisUnsafe(), limits),
      {
        onFailure: (failure) => Effect.succeed(Result.fail(failure)),
        onSuccess: (events) =>
          Effect.succeed(Result.succeed(Effect.succeed(landed(run, place, session, prompt, events))))
      }
    )
  }

  /**
   * A whole reply read from a stream: the caller has been handed nothing until it ends, so a
   * failure anywhere in it (a cut, a stall, an error inside the stream) is a failure the turn
   * answers, as one before the first content would be: the partial answer is dropped and the turn
   * may move on. It commits only once the stream has ended.
   */
  const readWhole = (
    events: Stream.Stream<Backend.Event, Failure.Failure>
  ): Effect.Effect<Result.Result<Effect.Effect<ReadonlyArray<Backend.Event>, Failure.Failure>, Failure.Failure>> =>
    Effect.match(Stream.runCollect(events), {
      onFailure: (failure) => Result.fail(failure),
      onSuccess: (got) => Result.succeed(Effect.succeed(got))
    })

  /**
   * A turn answered whole. A turn that lands at a healthy place whose session is already open and
   * replies whole runs bare: one admission, the reply, no scope, no lookup, nothing written.
   */
  const reply = (text: string): Effect.Effect<ReadonlyArray<Backend.Event>, Failure.Failure> =>
    telemetry.turnWith((clock, traced, services) => {
      const startedAt = clock.currentTimeMillisUnsafe()
      const start = startOf()
      const session = standIns.open(start)
      if (traced || session === undefined || !repliesWhole(start, session)) {
        return rest(newRun(clock, services, startedAt, undefined), start, text, undefined, traced)
      }
      return Effect.flatMap(health.admit(start), (admission) => {
        const run = newRun(clock, services, startedAt, undefined)
        if (admission._tag !== "Go" || admission.held) return rest(run, start, text, { admission }, false)
        const prompt = promptOf(text, state.history)
        return Effect.matchEffect(replyAttempt(run, start, session, probe, prompt, startedAt, keptOf(start)), {
          onSuccess: (events) => {
            telemetry.landed(run, start)
            return Effect.succeed(landed(run, start, session, prompt, events))
          },
          onFailure: (failure) => rest(run, start, text, { admission, first: Result.fail(failure) }, false)
        })
      })
    })

  /**
   * The end of a turn: a trial it took and neither answered nor failed (it was interrupted) is
   * given back, so the next turn takes it instead of skipping the place for a whole lease.
   */
  const settled = (run: Run.Run) => run.trial === undefined ? Effect.void : health.giveBack(run.trial)

  /** The rest of a whole turn; the scope a stream it reads needs is made then, and closed at its end. */
  const rest = (
    run: Run.Run,
    start: Place.Place,
    text: string,
    entry: Admitted<Effect.Effect<ReadonlyArray<Backend.Event>, Failure.Failure>> | undefined,
    traced: boolean
  ) =>
    telemetry.wholeTurn(
      run,
      start,
      traced,
      Effect.flatten(whole(run, start, text, collected, wholeMoved, entry)),
      (exit) =>
        run.made === undefined
          ? settled(run)
          : Effect.andThen(settled(run), Scope.close(run.made, exit))
    )

  return {
    origin,
    settings,
    at: Effect.sync(startOf),
    turn,
    reply
  } satisfies Agent.Agent
})
