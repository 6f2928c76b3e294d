import type * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import type * as Accounts from "../Accounts.js"
import * as Answer from "../Answer.js"
import * as Backend from "../Backend.js"
import type * as Failure from "../Failure.js"
import { Notice } from "../Notice.js"
import * as Place from "../Place.js"
import type * as Settings from "../Settings.js"
import { nextLink } from "./candidates.js"
import { atPlace, type Go, type Goes, type Unanswered } from "./goes.js"
import { type Run, spent } from "./run.js"

const key = Place.format

/**
 * What the walk uses of the agent, besides what the goes at a place use.
 *
 * @internal
 */
export interface Walker extends Goes {
  readonly origin: Place.Place
  readonly settings: Settings.Settings
  readonly accounts: Option.Option<Context.Tag.Service<typeof Accounts.Accounts>>
}

const stop = (run: Run, place: Place.Place, failure: Failure.Failure, reason: string, skipped = false) =>
  Effect.andThen(
    run.notices.publish(Notice.Stopping({ place, failure, reason, skipped })),
    Effect.fail(failure)
  )

/**
 * Steps 4 and 5: the account chain, then the place chain, from a place whose goes did not
 * answer. Succeeds with the answer, the place that gave it, and the moves that took the turn there.
 *
 * @internal
 */
export const walk = <A>(walker: Walker, run: Run, start: Place.Place, first: Unanswered, text: string, go: Go<A>) =>
  Effect.gen(function*() {
    const { compactor, origin, settings, standIns, steps } = walker
    const options = run.options
    let last = start
    let failure = first._tag === "Failed" ? first.failure : first.last
    // A place skipped since the last failure: what the turn says next is about the skip, not an
    // old failure told as if it had just happened.
    let skippedAt: Place.Place | undefined = first._tag === "Skipped" ? start : undefined
    const tried = new Set<string>([key(start)])
    const failedProviders = new Set<string>()
    const noteProvider = (place: Place.Place) =>
      Either.map(standIns.backendOf(place), (backend) => failedProviders.add(Backend.providerOf(backend, place)))
    if (first._tag === "Failed") noteProvider(start)
    const chain = yield* steps.chain(origin).pipe(Effect.either)
    if (Either.isLeft(chain)) {
      return yield* stop(run, start, failure, `the steps could not be read (${chain.left.message})`)
    }
    let links = chain.right
    // Made only when a round needs it: a failover that finds its place in the first round pays nothing.
    const relist = Effect.suspend(() => steps.chain(origin).pipe(Effect.orElseSucceed(() => links)))
    let link = Math.max(0, links.findIndex((p) => p.cli === start.cli && p.model === start.model))
    let arrived = start
    let accountQueue: Array<Place.Place> | undefined = undefined
    const moves: Array<Backend.Event> = []
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
          skippedAt ?? last,
          failure,
          `the turn's budget is spent (${
            Duration.format(options.budget.deadline)
          }, ${options.budget.attempts} requests)`,
          skippedAt !== undefined
        )
      }
      let next: { readonly place: Place.Place; readonly move: "account" | "place" } | undefined = undefined
      if (answer.accounts) {
        accountQueue ??= yield* accountPlaces(walker, arrived, tried)
        const place = accountQueue.shift()
        if (place !== undefined) next = { place, move: "account" }
      }
      if (next === undefined && answer.places) {
        const found = yield* nextLink({
          run,
          links,
          from: link,
          relist,
          tried,
          failedProviders,
          text,
          settings,
          backendOf: standIns.backendOf
        })
        if (found._tag === "Refused") return yield* stop(run, found.place, failure, found.reason)
        if (found._tag === "Found") {
          links = found.links
          link = found.index
          arrived = found.place
          accountQueue = undefined
          next = { place: found.place, move: "place" }
        }
      }
      if (next === undefined) {
        return yield* stop(
          run,
          skippedAt ?? last,
          failure,
          "no account or place is left to try",
          skippedAt !== undefined
        )
      }
      const { move, place } = next
      tried.add(key(place))
      if (move === "account") standIns.openNext(place, Option.fromNullable(run.state.conversations.get(key(last))))
      const from = skippedAt ?? last
      const moved = failure
      const announce = Effect.andThen(
        run.notices.publish(Notice.Moving({
          from,
          to: place,
          failure: moved,
          by: move,
          remedy: Answer.remedy(answer),
          skipped: skippedAt !== undefined
        })),
        Effect.sync(() => void moves.push(Backend.Event.Moved({ from, to: place, by: move, failure: moved })))
      )
      const outcome = yield* atPlace(walker, run, place, move, announce, text, go, undefined)
      if (outcome._tag === "Answered") return { answer: outcome.answer, place, moves }
      if (outcome._tag === "Failed") {
        failure = outcome.failure
        last = place
        skippedAt = undefined
        noteProvider(place)
      } else {
        skippedAt = place
      }
    }
  })

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
