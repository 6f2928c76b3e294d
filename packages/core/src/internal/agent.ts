import * as Chunk from "effect/Chunk"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Accounts from "../Accounts.js"
import type * as Agent from "../Agent.js"
import * as Answer from "../Answer.js"
import * as Backend from "../Backend.js"
import { Compactor } from "../Compactor.js"
import type * as ConfigFile from "../ConfigFile.js"
import * as Failure from "../Failure.js"
import * as Health from "../Health.js"
import { Notice, Notices } from "../Notice.js"
import * as Place from "../Place.js"
import * as Policy from "../Policy.js"
import * as Settings from "../Settings.js"
import { Steps } from "../Steps.js"
import { attempt, type Probe, promptOf, reply as replyAttempt, type Run, type State } from "./attempt.js"
import { check, nextLink } from "./candidates.js"
import { waits } from "./policy.js"

class StandIn extends Context.Tag("@fallback/core/StandIn")<StandIn, Backend.Session>() {}

/** What one place gave: an answer (a stream, or a whole reply), a failure, or a skip without a request. */
type Outcome<A> =
  | { readonly _tag: "Answered"; readonly answer: A }
  | { readonly _tag: "Failed"; readonly failure: Failure.Failure }
  | { readonly _tag: "Skipped"; readonly last: Failure.Failure }

type Unanswered = { readonly _tag: "Failed"; readonly failure: Failure.Failure } | {
  readonly _tag: "Skipped"
  readonly last: Failure.Failure
}

const answered = <A>(answer: A): Outcome<A> => ({ _tag: "Answered", answer })
const failed = (failure: Failure.Failure): Unanswered => ({ _tag: "Failed", failure })
const skipped = (last: Failure.Failure): Unanswered => ({ _tag: "Skipped", last })
const failureOf = (outcome: Unanswered) => outcome._tag === "Failed" ? outcome.failure : outcome.last

/**
 * One request at a place, the way a turn takes it: as a stream (`turn`) or answered whole
 * (`reply`).
 */
type Go<A> = (run: Run, place: Place.Place, prompt: Backend.Prompt) => Effect.Effect<Either.Either<A, Failure.Failure>>

/** Where a place's turn stands when it starts: its admission, and the first attempt's result if already made. */
interface Entry<A> {
  readonly admission: Health.Admission
  readonly first?: Either.Either<A, Failure.Failure> | undefined
}

/** How a turn reached a place. */
type Move = "start" | "account" | "place"

const key = Place.format

/** @internal */
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
  const notices = yield* Notices
  const agentScope = yield* Effect.scope

  const state: State = { at: origin, history: Chunk.empty(), conversations: new Map() }
  const openings = new Map<string, Backend.Opening>()
  const held = new Map<string, { readonly session: Backend.Session; readonly scope: Scope.CloseableScope }>()

  const notInstalled = (place: Place.Place) =>
    new Failure.NotInstalled({
      place,
      said: Failure.said(`no backend runs ${place.cli}`),
      install: `a backend for ${place.cli}`
    })
  const backendOf = (place: Place.Place) =>
    Option.match(backends.get(place.cli), {
      onNone: () => Either.left(notInstalled(place)),
      onSome: Either.right
    })
  const accountOf = (place: Place.Place) =>
    place.account === undefined || Option.isNone(accounts)
      ? Effect.succeed(Option.none<ConfigFile.Account>())
      : accounts.value.list(place.cli).pipe(
        Effect.map((list) => Option.fromNullable(list.find((account) => account.name === place.account))),
        Effect.orElseSucceed(() => Option.none<ConfigFile.Account>())
      )

  /** A place's stand-in: the Layer of its session, opened as the account with the agent's settings. */
  const standIn = (place: Place.Place) =>
    Layer.scoped(
      StandIn,
      Effect.gen(function*() {
        const backend = yield* backendOf(place)
        return yield* backend.open(place, yield* accountOf(place), settings, openings.get(key(place)) ?? {})
      })
    )

  /** The session at a place, built the first time a turn reaches it and held for the agent. */
  const hold = (place: Place.Place) =>
    Effect.suspend(() => {
      const found = held.get(key(place))
      if (found !== undefined) return Effect.succeed(found.session)
      return Effect.gen(function*() {
        const scope = yield* Scope.fork(agentScope, ExecutionStrategy.sequential)
        const built = yield* Layer.buildWithScope(standIn(place), scope).pipe(
          Effect.tapError(() => Scope.close(scope, Exit.void))
        )
        const session = Context.get(built, StandIn)
        held.set(key(place), { session, scope })
        return session
      })
    })

  /** Lets a place's session go, to be opened again (resuming `resume`) on the next go. */
  const reopen = (place: Place.Place, resume: Option.Option<string>) =>
    Effect.suspend(() => {
      const found = held.get(key(place))
      held.delete(key(place))
      openings.set(key(place), Option.match(resume, { onNone: () => ({}), onSome: (id) => ({ resume: id }) }))
      return found === undefined ? Effect.void : Scope.close(found.scope, Exit.void)
    })

  const newRun = (clock: Clock.Clock, startedAt: number, scope: Scope.Scope | undefined): Run => ({
    scope,
    made: undefined,
    startedAt,
    clock,
    deadline: startedAt + Duration.toMillis(options.budget.deadline),
    attempts: 0,
    history: state.history,
    options,
    notices,
    state
  })

  const startOf = () => options.moved === "stays" ? state.at : origin

  /** The whole turn from its first place: that place, then the walk. */
  const whole = <A>(run: Run, start: Place.Place, text: string, go: Go<A>, entry: Entry<A> | undefined) =>
    Effect.flatMap(atPlace(run, start, "start", Effect.void, text, go, entry), (first) =>
      first._tag === "Answered" ? Effect.succeed(first.answer) : walk(run, start, first, text, go))

  const streamed: Go<Stream.Stream<Backend.Event, Failure.Failure>> = (run, place, prompt) =>
    attempt(run, place, hold(place), probe, prompt)

  const turn = (text: string): Stream.Stream<Backend.Event, Failure.Failure> =>
    Stream.unwrapScoped(Effect.gen(function*() {
      const clock = yield* Effect.clock
      const run = newRun(clock, clock.unsafeCurrentTimeMillis(), yield* Effect.scope)
      return yield* whole(run, startOf(), text, streamed, undefined)
    }))

  /**
   * A request answered whole: by the session's `reply` where it has one, else its stream, the
   * rest of which is read once the first content is there (a failure after that surfaces as it is).
   */
  const collected: Go<Effect.Effect<ReadonlyArray<Backend.Event>, Failure.Failure>> = (run, place, prompt) => {
    const found = held.get(key(place))
    return found === undefined
      ? Effect.flatMap(Effect.either(hold(place)), (opened) => {
        if (Either.isRight(opened)) return collectedAt(run, place, opened.right, prompt)
        run.attempts += 1
        return Effect.succeed(Either.left(opened.left))
      })
      : collectedAt(run, place, found.session, prompt)
  }

  const collectedAt = (run: Run, place: Place.Place, session: Backend.Session, prompt: Backend.Prompt) => {
    if (!repliesWhole(session)) {
      return Effect.andThen(
        run.scope === undefined ? Effect.map(Scope.make(), (scope) => void (run.scope = run.made = scope)) : Effect.void,
        Effect.map(
          attempt(run, place, Effect.succeed(session), probe, prompt),
          Either.map((stream) => Effect.map(Stream.runCollect(stream), Chunk.toReadonlyArray))
        )
      )
    }
    return Effect.either(Effect.map(
      replyAttempt(run, place, session, probe, prompt, run.clock.unsafeCurrentTimeMillis()),
      (events) => Effect.succeed(landed(run, place, session, prompt, events))
    ))
  }

  /**
   * Whether a session's turn is taken by its `reply`: when it keeps its limits itself, or when the
   * engine can time it fairly. A reply's first content is the whole of it, so a reply the engine
   * times is bounded by the first byte's limit too: a long answer would be cut short. The engine
   * times a reply itself only when the agent sets no first-byte limit and no watchdog; otherwise
   * the turn reads the session's stream, where the first content is seen when it comes.
   */
  const repliesWhole = (session: Backend.Session) =>
    session.reply !== undefined &&
    (session.keepsLimits === true || (Option.isNone(options.firstByte) && Option.isNone(options.watchdog)))

  /** A whole reply that came: its session is noted and the exchange joins the conversation. */
  const landed = (
    run: Run,
    place: Place.Place,
    session: Backend.Session,
    prompt: Backend.Prompt,
    events: ReadonlyArray<Backend.Event>
  ) => {
    let id = session.id
    for (const event of events) if (event._tag === "SessionStarted") id = event.sessionId
    const at = key(place)
    if (run.state.conversations.get(at) !== id) run.state.conversations.set(at, id)
    if (session.keepsConversation !== true) {
      run.state.history = Chunk.append(run.history, { prompt: prompt.text, answer: Backend.textOf(events) })
    }
    return events
  }

  /**
   * A turn answered whole. A turn that lands at a healthy place whose session is already open and
   * replies whole runs bare: one admission, the reply, no scope, no lookup, nothing written.
   */
  const reply = (text: string): Effect.Effect<ReadonlyArray<Backend.Event>, Failure.Failure> =>
    Effect.clockWith((clock) => {
      const startedAt = clock.unsafeCurrentTimeMillis()
      const start = startOf()
      const session = held.get(key(start))?.session
      if (session === undefined || !repliesWhole(session)) {
        return rest(newRun(clock, startedAt, undefined), start, text, undefined)
      }
      return Effect.flatMap(health.admit(start), (admission) => {
        const run = newRun(clock, startedAt, undefined)
        if (admission._tag !== "Go" || admission.held) return rest(run, start, text, { admission })
        const prompt = promptOf(text, state.history)
        return Effect.matchEffect(replyAttempt(run, start, session, probe, prompt, startedAt), {
          onSuccess: (events) => Effect.succeed(landed(run, start, session, prompt, events)),
          onFailure: (failure) => rest(run, start, text, { admission, first: Either.left(failure) })
        })
      })
    })

  /** The rest of a whole turn; the scope a stream it reads needs is made then, and closed at its end. */
  const rest = (
    run: Run,
    start: Place.Place,
    text: string,
    entry: Entry<Effect.Effect<ReadonlyArray<Backend.Event>, Failure.Failure>> | undefined
  ) =>
    Effect.onExit(
      Effect.flatten(whole(run, start, text, collected, entry)),
      (exit) => run.made === undefined ? Effect.void : Scope.close(run.made, exit)
    )

  const probe: Probe = (place, within) =>
    Either.match(backendOf(place), {
      onLeft: () => Effect.succeed(false),
      onRight: (backend) => check(backend, place, within)
    })

  const spent = (run: Run, now: number) => run.attempts >= options.budget.attempts || now >= run.deadline

  /**
   * Step 3: goes at one place, with the waits the step and the failure's answer ask for. `entry`
   * is given when the place was already admitted, and its first attempt perhaps already made.
   */
  const atPlace = <A>(
    run: Run,
    place: Place.Place,
    move: Move,
    announce: Effect.Effect<void>,
    text: string,
    go: Go<A>,
    entry: Entry<A> | undefined
  ): Effect.Effect<Outcome<A>> =>
    Effect.gen(function*() {
      const admission = entry?.admission ?? (yield* health.admit(place))
      if (admission._tag === "Skip") {
        yield* notices.publish(Notice.Skipping({ place, why: admission.why, until: admission.until }))
        return skipped(admission.last)
      }
      yield* announce
      if (move === "place") run.history = Chunk.empty()
      const placeStartedAt = entry?.first === undefined ? run.clock.unsafeCurrentTimeMillis() : run.startedAt
      let first = entry?.first
      let goes = 0
      let step: Policy.Retrying | undefined = undefined
      let stepWaits: ReadonlyArray<number> | undefined = undefined
      while (true) {
        const prompt = promptOf(text, run.history)
        const result = first ?? (yield* go(run, place, prompt))
        first = undefined
        if (Either.isRight(result)) {
          if (admission._tag !== "Go" || admission.held || goes > 0) yield* health.succeeded(place)
          return answered(result.right)
        }
        const failure = result.left
        const now = run.clock.unsafeCurrentTimeMillis()
        const answer = Answer.of(options.answers, failure)
        yield* health.failed(place, {
          failure,
          counts: failure._tag !== "ContextTooLong",
          coolUntil: coolUntil(answer, failure, now)
        })
        if (failure._tag === "ContextTooLong") {
          if (Option.isNone(compactor) || spent(run, now)) return failed(failure)
          const shorter = yield* compactor.value.compact(prompt)
          if (Option.isSome(shorter) && shorter.value.length < Chunk.size(run.history)) {
            run.history = Chunk.fromIterable(shorter.value)
            yield* notices.publish(Notice.Compacting({ place, failure, how: "compact" }))
            continue
          }
          if (Chunk.isEmpty(run.history)) return failed(failure)
          run.history = Chunk.drop(run.history, 1)
          yield* notices.publish(Notice.Compacting({ place, failure, how: "trim" }))
          continue
        }
        step ??= answer.step ? yield* retryingAt(place) : undefined
        const retrying = answer.step && step !== undefined ? step : Policy.never
        const total = answer.here.length + retrying.tries
        if (goes >= total || spent(run, now)) return failed(failure)
        if (goes >= answer.here.length && stepWaits === undefined) {
          stepWaits = yield* waits(Policy.schedule(retrying.policy), retrying.tries)
        }
        const wait = Math.max(
          goes < answer.here.length ? Duration.toMillis(answer.here[goes]!) : stepWaits![goes - answer.here.length]!,
          Duration.toMillis(answer.atLeast),
          failure._tag === "RateLimited" && failure.retryAfter !== undefined ? Duration.toMillis(failure.retryAfter) : 0
        )
        const stepOver = !Duration.isZero(retrying.timeout) && goes >= answer.here.length &&
          now + wait > placeStartedAt + Duration.toMillis(retrying.timeout)
        if (stepOver || now + wait >= run.deadline) return failed(failure)
        goes += 1
        yield* notices.publish(
          Notice.Retrying({ place, failure, wait: Duration.millis(wait), go: goes, of: total, reopen: answer.reopen })
        )
        yield* Effect.sleep(Duration.millis(wait))
        if (answer.reopen) yield* reopen(place, Option.fromNullable(state.conversations.get(key(place))))
      }
      // A trial this turn took and will not answer is given back (a no-op when it holds none).
    }).pipe(Effect.onInterrupt(() => health.giveBack(place)))


  const retryingAt = (place: Place.Place) =>
    steps.get(place).pipe(
      Effect.map((step) => Option.getOrElse(Option.flatMap(step, (s) => s.retrying), () => Policy.never)),
      Effect.orElseSucceed(() => Policy.never)
    )

  const stop = (run: Run, place: Place.Place, failure: Failure.Failure, reason: string) =>
    Effect.andThen(
      run.notices.publish(Notice.Stopping({ place, failure, reason })),
      Effect.fail(failure)
    )

  /** Steps 4 and 5: the account chain, then the place chain. */
  const walk = <A>(run: Run, start: Place.Place, first: Unanswered, text: string, go: Go<A>) =>
    Effect.gen(function*() {
      let last = start
      let failure = failureOf(first)
      const tried = new Set<string>([key(start)])
      const failedProviders = new Set<string>()
      const noteProvider = (place: Place.Place) =>
        Either.map(backendOf(place), (backend) => failedProviders.add(Backend.providerOf(backend, place)))
      if (first._tag === "Failed") noteProvider(start)
      const chain = yield* steps.chain(origin).pipe(Effect.either)
      if (Either.isLeft(chain)) {
        return yield* stop(run, start, failure, `the steps could not be read (${chain.left.message})`)
      }
      const links = chain.right
      let link = Math.max(0, links.findIndex((p) => p.cli === start.cli && p.model === start.model))
      let arrived = start
      let accountQueue: Array<Place.Place> | undefined = undefined
      while (true) {
        const answer = Answer.of(options.answers, failure)
        const now = run.clock.unsafeCurrentTimeMillis()
        if (answer.once) {
          return yield* stop(
            run,
            last,
            failure,
            Option.isSome(compactor) ? "nothing is left to trim" : "it is taken once, whatever a chain says"
          )
        }
        if (!options.fallback) return yield* stop(run, last, failure, "the agent is pinned to its place")
        if (spent(run, now)) {
          return yield* stop(
            run,
            last,
            failure,
            `the turn's budget is spent (${Duration.format(options.budget.deadline)}, ${options.budget.attempts} requests)`
          )
        }
        let next: { readonly place: Place.Place; readonly move: "account" | "place" } | undefined = undefined
        if (answer.accounts) {
          accountQueue ??= yield* accountPlaces(arrived, tried)
          const place = accountQueue.shift()
          if (place !== undefined) next = { place, move: "account" }
        }
        if (next === undefined && answer.places) {
          const found = yield* nextLink({ run, links, from: link, tried, failedProviders, text, settings, backendOf })
          if (found._tag === "Refused") return yield* stop(run, found.place, failure, found.reason)
          if (found._tag === "Found") {
            link = found.index
            arrived = found.place
            accountQueue = undefined
            next = { place: found.place, move: "place" }
          }
        }
        if (next === undefined) return yield* stop(run, last, failure, "no account or place is left to try")
        const { move, place } = next
        tried.add(key(place))
        if (move === "account") {
          openings.set(
            key(place),
            Option.match(Option.fromNullable(state.conversations.get(key(last))), {
              onNone: () => ({}),
              onSome: (id) => ({ resume: id })
            })
          )
        }
        const announce = run.notices.publish(Notice.Moving({ from: last, to: place, failure, by: move }))
        const outcome = yield* atPlace(run, place, move, announce, text, go, undefined)
        if (outcome._tag === "Answered") {
          if (options.moved === "stays") state.at = place
          return outcome.answer
        }
        if (outcome._tag === "Failed") {
          failure = outcome.failure
          last = place
          noteProvider(place)
        }
      }
    })

  /**
   * The account chain from a place: its CLI's accounts after the place's own, in their order, at
   * the same model. An account left behind is not walked back to.
   */
  const accountPlaces = (from: Place.Place, tried: ReadonlySet<string>) =>
    Option.match(accounts, {
      onNone: () => Effect.succeed([] as Array<Place.Place>),
      onSome: (service) =>
        service.list(from.cli).pipe(
          Effect.orElseSucceed(() => []),
          Effect.map((list) =>
            list
              .slice(list.findIndex((account) => account.name === from.account) + 1)
              .map((account) => new Place.Place({ cli: from.cli, account: account.name, model: from.model }))
              .filter((place) => !tried.has(key(place)))
          )
        )
    })

  return {
    origin,
    settings,
    at: Effect.sync(startOf),
    turn,
    reply
  } satisfies Agent.Agent
})

const coolUntil = (answer: Answer.Answer, failure: Failure.Failure, now: number): Option.Option<number> => {
  if (answer.cooldown === undefined) return Option.none()
  if (failure._tag === "QuotaExhausted" && failure.until !== undefined) {
    return Option.some(failure.until.epochMillis)
  }
  if (failure._tag === "RateLimited" && failure.retryAfter !== undefined) {
    return Option.some(now + Math.max(Duration.toMillis(failure.retryAfter), Duration.toMillis(answer.cooldown)))
  }
  return Option.some(now + Duration.toMillis(answer.cooldown))
}
