import * as Chunk from "effect/Chunk"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import type * as Accounts from "../../Accounts.js"
import * as Answer from "../../Answer.js"
import * as Backend from "../../Backend.js"
import type * as Failure from "../../Failure.js"
import * as Place from "../../Place.js"
import type * as Settings from "../../Settings.js"
import { atPlace, type Request, type Unanswered, type Uses } from "./atPlace.js"
import { type Next, nextLink } from "./candidates.js"
import { moved, moving, stopping } from "./made.js"
import * as State from "./state.js"
import type { Run } from "./state.js"

const key = Place.format

/**
 * What the walk uses of the agent, besides what the goes at a place use.
 *
 * @internal
 */
export interface Walker extends Uses {
  readonly origin: Place.Place
  readonly settings: Settings.Settings
  readonly accounts: Option.Option<Accounts.Accounts.Service>
}

const stop = (run: Run, place: Place.Place, failure: Failure.Failure, reason: string, skipped = false) =>
  Effect.andThen(
    run.notices.publish(stopping(place, failure, reason, skipped)),
    Effect.fail(failure)
  )

/**
 * What the walk gave: the answer, the place that gave it, and the moves that took the turn there.
 *
 * @internal
 */
export interface Walked<A> {
  readonly answer: A
  readonly place: Place.Place
  readonly moves: ReadonlyArray<Backend.Event>
}

/**
 * Which places a walk may move to: a place `test` refuses ends the walk there, before anything is
 * announced or asked, with `otherwise` as its answer (a continuation the next place cannot take).
 *
 * @internal
 */
export interface Accepts<A> {
  readonly test: (place: Place.Place) => boolean
  readonly otherwise: A
}

/**
 * Steps 4 and 5: the account chain, then the place chain, from a place whose goes did not
 * answer. Succeeds with the answer, the place that gave it, and the moves that took the turn there.
 *
 * @internal
 */
export const walk = <A>(
  walker: Walker,
  run: Run,
  start: Place.Place,
  first: Unanswered,
  text: string,
  go: Request<A>,
  accepts?: Accepts<A>
): Effect.Effect<Walked<A>, Failure.Failure> =>
  Effect.matchEffect(walker.steps.chain(walker.origin), {
    onFailure: (error) =>
      stop(
        run,
        start,
        first._tag === "Failed" ? first.failure : first.last,
        `the steps could not be read (${error.message})`
      ),
    onSuccess: (links) => new Walking(walker, run, start, first, text, go, links, accepts).next()
  })

const noProviders: ReadonlySet<string> = new Set()

/** One walk as it goes: where it has been, what failed last, and where it stands in the chains. */
class Walking<A> {
  last: Place.Place
  failure: Failure.Failure
  /**
   * A place skipped since the last failure: what the turn says next is about the skip, not an
   * old failure told as if it had just happened.
   */
  skippedAt: Place.Place | undefined
  readonly tried: Set<string>
  /** Kept only where the options skip a provider that failed this turn. */
  readonly failedProviders: Set<string> | undefined
  link: number
  arrived: Place.Place
  accountQueue: Array<Place.Place> | undefined = undefined
  readonly moves: Array<Backend.Event> = []
  /** Once a context was too long: the largest window that overflowed; only larger ones are tried. */
  larger: number | undefined = undefined

  constructor(
    readonly walker: Walker,
    readonly run: Run,
    start: Place.Place,
    first: Unanswered,
    readonly text: string,
    readonly go: Request<A>,
    public links: ReadonlyArray<Place.Place>,
    readonly accepts: Accepts<A> | undefined
  ) {
    this.last = start
    this.arrived = start
    this.failure = first._tag === "Failed" ? first.failure : first.last
    this.skippedAt = first._tag === "Skipped" ? start : undefined
    this.tried = new Set([key(start)])
    this.failedProviders = run.options.candidates.skipFailedProvider ? new Set() : undefined
    if (first._tag === "Failed") this.noteProvider(start)
    this.link = Math.max(0, links.findIndex((p) => p.cli === start.cli && p.model === start.model))
  }

  noteProvider(place: Place.Place) {
    if (this.failedProviders === undefined) return
    const backend = this.walker.standIns.backendOf(place)
    if (Result.isSuccess(backend)) this.failedProviders.add(Backend.providerOf(backend.success, place))
  }

  /** The chain read again, for each round after the first: a failover found in the first pays nothing. */
  readonly relist = () => this.walker.steps.chain(this.walker.origin).pipe(Effect.orElseSucceed(() => this.links))

  next(): Effect.Effect<Walked<A>, Failure.Failure> {
    const { run } = this
    const options = run.options
    const answer = Answer.of(options.answers, this.failure)
    if (
      this.failure._tag === "ContextTooLong" && options.fallback &&
      !State.spent(run, run.clock.currentTimeMillisUnsafe())
    ) {
      return this.biggerWindow(answer)
    }
    if (answer.once) {
      return stop(
        run,
        this.last,
        this.failure,
        this.failure._tag === "ContextTooLong" && Option.isSome(this.walker.compactor)
          ? "nothing is left to trim"
          : "it is taken once, whatever a chain says"
      )
    }
    if (!options.fallback) return stop(run, this.last, this.failure, "the agent is pinned to its place")
    if (State.spent(run, run.clock.currentTimeMillisUnsafe())) {
      return stop(
        run,
        this.skippedAt ?? this.last,
        this.failure,
        `the turn's budget is spent (${Duration.format(options.budget.deadline)}, ${options.budget.attempts} requests)`,
        this.skippedAt !== undefined
      )
    }
    if (!answer.accounts) return this.nextPlace(answer)
    if (this.accountQueue === undefined) {
      return Effect.flatMap(accountPlaces(this.walker, this.arrived, this.tried), (queue) => {
        this.accountQueue = queue
        return this.nextAccount(answer)
      })
    }
    return this.nextAccount(answer)
  }

  /**
   * A context too long, taken once where it happened (compacted and trimmed first, where a
   * Compactor is given): the walk goes on only to a place whose window is larger than the one that
   * overflowed (the prompt's own length where that window is not declared), passing accounts by
   * (they share the model), or fails as it is when there is none.
   */
  biggerWindow(answer: Answer.Answer): Effect.Effect<Walked<A>, Failure.Failure> {
    const backend = this.walker.standIns.backendOf(this.last)
    const window = Result.isSuccess(backend) ? Backend.modelAt(backend.success, this.last).contextWindow : undefined
    const overflowed = window ?? Backend.tokens({ text: this.text, history: Chunk.toReadonlyArray(this.run.history) })
    this.larger = Math.max(this.larger ?? 0, overflowed)
    return this.nextPlace(answer, true)
  }

  nextAccount(answer: Answer.Answer): Effect.Effect<Walked<A>, Failure.Failure> {
    const place = this.accountQueue!.shift()
    return place === undefined ? this.nextPlace(answer) : this.moveTo(place, "account", answer)
  }

  nextPlace(answer: Answer.Answer, always = false): Effect.Effect<Walked<A>, Failure.Failure> {
    if (!answer.places && !always) return this.noneLeft()
    const found = nextLink({
      run: this.run,
      links: this.links,
      from: this.link,
      relist: this.relist,
      tried: this.tried,
      failedProviders: this.failedProviders ?? noProviders,
      text: this.text,
      settings: this.walker.settings,
      backendOf: this.walker.standIns.backendOf,
      larger: this.larger
    })
    return Effect.isEffect(found)
      ? Effect.flatMap(found, (next) => this.found(next, answer))
      : this.found(found, answer)
  }

  found(found: Next, answer: Answer.Answer): Effect.Effect<Walked<A>, Failure.Failure> {
    if (found._tag === "Refused") return stop(this.run, found.place, this.failure, found.reason)
    if (found._tag === "None") return this.noneLeft()
    this.links = found.links
    this.link = found.index
    this.arrived = found.place
    this.accountQueue = undefined
    return this.moveTo(found.place, "place", answer)
  }

  noneLeft() {
    const reason = this.larger === undefined
      ? "no account or place is left to try"
      : `${
        Option.isSome(this.walker.compactor) ? "nothing is left to trim" : "it is taken once here"
      }, and no place with a larger context window is left`
    return stop(
      this.run,
      this.skippedAt ?? this.last,
      this.failure,
      reason,
      this.skippedAt !== undefined
    )
  }

  moveTo(
    place: Place.Place,
    by: "account" | "place",
    answer: Answer.Answer
  ): Effect.Effect<Walked<A>, Failure.Failure> {
    const { run } = this
    if (this.accepts !== undefined && !this.accepts.test(place)) {
      return Effect.succeed({ answer: this.accepts.otherwise, place, moves: [] })
    }
    this.tried.add(key(place))
    if (by === "account") {
      this.walker.standIns.openNext(place, Option.fromNullishOr(State.sessionAt(run, this.last)))
    }
    const from = this.skippedAt ?? this.last
    const failure = this.failure
    const skipped = this.skippedAt !== undefined
    const announce = () => {
      this.moves.push(moved(from, place, by, failure))
      return run.notices.publish(
        moving(from, place, failure, by, Answer.remedy(answer), skipped)
      )
    }
    return Effect.flatMap(atPlace(this.walker, run, place, by, announce, this.text, this.go, undefined), (outcome) => {
      if (outcome._tag === "Answered") return Effect.succeed({ answer: outcome.answer, place, moves: this.moves })
      if (outcome._tag === "Failed") {
        this.failure = outcome.failure
        this.last = place
        this.skippedAt = undefined
        this.noteProvider(place)
      } else {
        this.skippedAt = place
      }
      return this.next()
    })
  }
}

/**
 * The account chain from a place: its CLI's accounts after the place's own, in their order, at
 * the same model. An account left behind is not walked back to.
 */
const accountPlaces = (walker: Walker, from: Place.Place, tried: ReadonlySet<string>) =>
  Option.match(walker.accounts, {
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
