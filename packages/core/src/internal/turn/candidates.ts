import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Backend from "../../Backend.js"
import type * as Failure from "../../Failure.js"
import * as Place from "../../Place.js"
import * as Settings from "../../Settings.js"
import { cutAfter } from "./deadline.js"
import { passedOver } from "./made.js"
import type { Run } from "./state.js"

/**
 * Whether a backend's liveness check passes within `within`; a backend with no check passes.
 *
 * @internal
 */
export const check = (
  backend: Backend.Backend,
  place: Place.Place,
  within: Duration.Duration
): Effect.Effect<boolean> =>
  backend.check === undefined
    ? Effect.succeed(true)
    : cutAfter(backend.check(place), within, () => "late" as const).pipe(
      Effect.match({ onFailure: () => false, onSuccess: () => true })
    )

/**
 * Where the place chain stands when the next place is picked.
 *
 * @internal
 */
export interface Walk {
  readonly run: Run
  readonly links: ReadonlyArray<Place.Place>
  readonly from: number
  /** The chain read again, for each round after the first (002: the list is rebuilt each round). */
  readonly relist: () => Effect.Effect<ReadonlyArray<Place.Place>>
  readonly tried: ReadonlySet<string>
  readonly failedProviders: ReadonlySet<string>
  readonly text: string
  readonly settings: Settings.Settings
  readonly backendOf: (place: Place.Place) => Result.Result<Backend.Backend, Failure.Failure>
  /**
   * After a context too long: only a place whose declared window is larger than this many tokens
   * may take the turn; one with a smaller window, or none declared, is passed over.
   */
  readonly larger?: number | undefined
}

/** @internal */
export type Next =
  | {
    readonly _tag: "Found"
    readonly place: Place.Place
    readonly index: number
    readonly links: ReadonlyArray<Place.Place>
  }
  | { readonly _tag: "Refused"; readonly place: Place.Place; readonly reason: string }
  | { readonly _tag: "None" }

const none: Next = { _tag: "None" }

/**
 * The next place in the chain that may take the turn (`Found`), the place whose backend cannot
 * honour the agent's settings (`Refused`: the walk stops there), or `None`. Candidates already
 * tried this turn are passed over, and after a context too long every window no larger than the
 * one that overflowed (002's candidate rule, for every preset); the options may also skip a provider that failed this turn, a
 * context window smaller than the prompt, and a place failing its health check, going over the
 * list up to `rounds` times, reading it again for each round after the first.
 *
 * Worked out without an effect where nothing is skipped, checked or read again (the common
 * failover): an Effect only when one is needed.
 *
 * @internal
 */
export const nextLink = (walk: Walk): Next | Effect.Effect<Next> => scan(walk, walk.links, walk.from, 0, walk.from + 1)

const resolved = (next: Next | Effect.Effect<Next>): Effect.Effect<Next> =>
  Effect.isEffect(next) ? next : Effect.succeed(next)

const scan = (
  walk: Walk,
  links: ReadonlyArray<Place.Place>,
  from: number,
  round: number,
  index: number
): Next | Effect.Effect<Next> => {
  const { backendOf, failedProviders, run, tried } = walk
  const candidates = run.options.candidates
  if (round >= candidates.rounds) return none
  const skip = (place: Place.Place, why: "provider" | "window" | "unhealthy", at: number) =>
    Effect.flatMap(
      run.notices.publish(passedOver(place, why)),
      () => resolved(scan(walk, links, from, round, at + 1))
    )
  for (; index < links.length; index++) {
    const place = links[index]!
    if (tried.has(Place.format(place))) continue
    const backend = backendOf(place)
    if (Result.isFailure(backend)) return { _tag: "Found", place, index, links }
    const refusal = Settings.refusal(walk.settings, backend.success.capabilities)
    if (Option.isSome(refusal)) return { _tag: "Refused", place, reason: `${place.cli} ${refusal.value}` }
    if (candidates.skipFailedProvider && failedProviders.has(Backend.providerOf(backend.success, place))) {
      return skip(place, "provider", index)
    }
    if (walk.larger !== undefined) {
      const window = Backend.modelAt(backend.success, place).contextWindow
      // a place that declares no window is passed over without a word: nothing says it is larger
      if (window === undefined) continue
      if (window <= walk.larger) return skip(place, "window", index)
    }
    if (candidates.fitWindow) {
      const window = Backend.modelAt(backend.success, place).contextWindow
      if (window !== undefined && window < Backend.tokens({ text: walk.text, history: [] })) {
        return skip(place, "window", index)
      }
    }
    if (Option.isSome(candidates.check)) {
      const left = Duration.millis(Math.max(0, run.deadline - run.clock.currentTimeMillisUnsafe()))
      const found: Next = { _tag: "Found", place, index, links }
      const at = index
      return Effect.flatMap(
        check(backend.success, place, Duration.min(candidates.check.value, left)),
        (passes) => passes ? Effect.succeed(found) : skip(place, "unhealthy", at)
      )
    }
    return { _tag: "Found", place, index, links }
  }
  const at = links[from]
  return Effect.flatMap(walk.relist(), (relisted) => {
    const again = at === undefined ? -1 : relisted.findIndex((place) => Place.format(place) === Place.format(at))
    return resolved(scan(walk, relisted, again, round + 1, again + 1))
  })
}
