import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Backend from "../Backend.js"
import type * as Failure from "../Failure.js"
import { Notice } from "../Notice.js"
import * as Place from "../Place.js"
import * as Settings from "../Settings.js"
import type { Run } from "./run.js"

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
    : backend.check(place).pipe(
      Effect.timeout(within),
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
  readonly relist: Effect.Effect<ReadonlyArray<Place.Place>>
  readonly tried: ReadonlySet<string>
  readonly failedProviders: ReadonlySet<string>
  readonly text: string
  readonly settings: Settings.Settings
  readonly backendOf: (place: Place.Place) => Either.Either<Backend.Backend, Failure.Failure>
}

/**
 * The next place in the chain that may take the turn (`Found`), the place whose backend cannot
 * honour the agent's settings (`Refused`: the walk stops there), or `None`. Candidates already
 * tried this turn are passed over; the options may also skip a provider that failed this turn, a
 * context window smaller than the prompt, and a place failing its health check, going over the
 * list up to `rounds` times, reading it again for each round after the first.
 *
 * @internal
 */
export const nextLink = (walk: Walk) =>
  Effect.gen(function*() {
    const { backendOf, failedProviders, run, tried } = walk
    let links = walk.links
    let from = walk.from
    const candidates = run.options.candidates
    const size = Backend.tokens({ text: walk.text, history: [] })
    const skip = (place: Place.Place, why: "provider" | "window" | "unhealthy") =>
      run.notices.publish(Notice.Skipping({ place, why, until: undefined }))
    for (let round = 0; round < candidates.rounds; round++) {
      if (round > 0) {
        const at = links[from]
        links = yield* walk.relist
        from = at === undefined ? -1 : links.findIndex((place) => Place.format(place) === Place.format(at))
      }
      for (let index = from + 1; index < links.length; index++) {
        const place = links[index]!
        if (tried.has(Place.format(place))) continue
        const backend = backendOf(place)
        if (Either.isLeft(backend)) return { _tag: "Found", place, index, links } as const
        const refusal = Settings.refusal(walk.settings, backend.right.capabilities)
        if (Option.isSome(refusal)) return { _tag: "Refused", place, reason: `${place.cli} ${refusal.value}` } as const
        if (candidates.skipFailedProvider && failedProviders.has(Backend.providerOf(backend.right, place))) {
          yield* skip(place, "provider")
          continue
        }
        const window = Backend.modelAt(backend.right, place).contextWindow
        if (candidates.fitWindow && window !== undefined && window < size) {
          yield* skip(place, "window")
          continue
        }
        if (Option.isSome(candidates.check)) {
          const left = Duration.millis(Math.max(0, run.deadline - (yield* Clock.currentTimeMillis)))
          if (!(yield* check(backend.right, place, Duration.min(candidates.check.value, left)))) {
            yield* skip(place, "unhealthy")
            continue
          }
        }
        return { _tag: "Found", place, index, links } as const
      }
    }
    return { _tag: "None" } as const
  })
