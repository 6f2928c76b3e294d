/**
 * What is known about each place (account × model): failures in a row, its circuit breaker, and
 * any cooldown. A parked or cooling place is skipped without a request.
 *
 * The breaker: after `failures` failures in a row (5) a place is parked for `park` (60 s); then
 * exactly one trial request is let through. Its success clears the place to a clean slate; its
 * failure parks it again at once. A single success clears the count.
 *
 * @since 0.1.0
 */
import type * as FileSystem from "@effect/platform/FileSystem"
import type * as Path from "@effect/platform/Path"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Failure from "./Failure.js"
import * as internal from "./internal/health.js"
import * as healthFile from "./internal/healthFile.js"
import * as telemetry from "./internal/telemetry.js"
import * as Place from "./Place.js"

/**
 * The breaker's numbers.
 *
 * @since 0.1.0
 * @category models
 */
export interface Breaker {
  /** Failures in a row that park a place. */
  readonly failures: number
  /** How long a parked place is skipped before its one trial. */
  readonly park: Duration.Duration
}

/**
 * The breaker preset's numbers, the default: 5 failures in a row park a place for 60 s.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultBreaker: Breaker = { failures: 5, park: Duration.seconds(60) }

/**
 * Where a place's breaker stands.
 *
 * @since 0.1.0
 * @category models
 */
export type BreakerState = "closed" | "parked" | "trial"

/**
 * One place's state, as a snapshot reports it.
 *
 * @since 0.1.0
 * @category models
 */
export interface PlaceHealth {
  readonly place: Place.Place
  readonly failures: number
  readonly breaker: BreakerState
  readonly parkedUntil: Option.Option<number>
  readonly coolingUntil: Option.Option<number>
  readonly last: Failure.Failure
}

/**
 * Whether a request may go to a place: `Go` (with `held` when something is recorded against it),
 * `Trial` (the one request let through after a park),
 * or `Skip` with why, until when, and the failure behind it.
 *
 * @since 0.1.0
 * @category models
 */
export type Admission = internal.Admission

/**
 * A failure to record: whether it counts toward the breaker, and any cooldown it asks for.
 *
 * @since 0.1.0
 * @category models
 */
export interface Failed {
  readonly failure: Failure.Failure
  readonly counts: boolean
  readonly coolUntil: Option.Option<number>
}

/**
 * The health of places, read and written. The interface says nothing of where it is kept.
 *
 * @since 0.1.0
 * @category services
 */
export class Health extends Context.Tag("@fallback/core/Health")<Health, {
  /** Whether a request may go to a place now; a `Trial` admission is handed out once per park. */
  readonly admit: (place: Place.Place) => Effect.Effect<Admission>
  /** A request at a place was answered. */
  readonly succeeded: (place: Place.Place) => Effect.Effect<void>
  /** A request at a place failed. */
  readonly failed: (place: Place.Place, failed: Failed) => Effect.Effect<void>
  /** Every place with something held against it. */
  readonly snapshot: Effect.Effect<ReadonlyArray<PlaceHealth>>
}>() {
  /**
   * Health held in memory, with the given breaker (the breaker preset's numbers by default).
   *
   * @since 0.1.0
   */
  static readonly layerMemory = (breaker: Breaker = defaultBreaker): Layer.Layer<Health> =>
    Layer.effect(
      Health,
      Effect.sync(() => {
        const book = new Map<string, internal.Entry>()
        return make({
          get: () => Effect.sync(() => new Map(book)),
          modify: (_, change) =>
            Effect.sync(() => {
              const [answer, patch] = change(book)
              if (patch !== undefined) internal.apply(book, patch)
              return answer
            })
        }, breaker)
      })
    )

  /**
   * Health kept in a file several processes share (the command line keeps it beside the config
   * file), so a breaker opened by one run is seen by the next. A turn that lands at a healthy place
   * reads it and writes nothing; a file that does not read counts as no failures recorded.
   *
   * @since 0.1.0
   */
  static readonly layerFile = (
    file: string,
    breaker: Breaker = defaultBreaker
  ): Layer.Layer<Health, never, FileSystem.FileSystem | Path.Path> =>
    Layer.effect(Health, Effect.map(healthFile.fileBook(file, numbersOf(breaker)), (book) => make(book, breaker)))
}

const numbersOf = (breaker: Breaker): internal.Breaker => ({
  failures: breaker.failures,
  parkMillis: Duration.toMillis(breaker.park)
})

interface Keeping {
  readonly get: (now: number) => Effect.Effect<internal.Book>
  readonly modify: <A>(
    now: number,
    change: (book: internal.Book) => readonly [A, internal.Patch | undefined]
  ) => Effect.Effect<A>
}

const make = (keeping: Keeping, breaker: Breaker): Health["Type"] => {
  const numbers = numbersOf(breaker)
  const clean = [internal.clean, undefined] as const
  return Health.of({
    admit: (place) =>
      Effect.clockWith((clock) => {
        const now = clock.unsafeCurrentTimeMillis()
        return keeping.modify(now, (book) => {
          const key = Place.format(place)
          const was = book.get(key)
          if (was === undefined) return clean
          const [admission, entry] = internal.admit(was, now)
          return [admission, entry === was ? undefined : { key, entry }]
        })
      }),
    succeeded: (place) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        keeping.modify(now, (book) => {
          const key = Place.format(place)
          const was = book.get(key)
          return [was?.parkedUntil !== undefined, was !== undefined ? { key, entry: undefined } : undefined]
        }).pipe(Effect.map((wasParked) => void (wasParked && telemetry.cleared(place))))),
    failed: (place, { counts, coolUntil, failure }) =>
      Effect.clockWith((clock) => {
        const now = clock.unsafeCurrentTimeMillis()
        return keeping.modify(now, (book) => {
          const key = Place.format(place)
          const was = book.get(key)
          const entry = internal.failed(was, place, failure, counts, Option.getOrUndefined(coolUntil), numbers, now)
          return [entry.parkedUntil !== was?.parkedUntil, { key, entry }]
        }).pipe(Effect.map((parks) => void (parks && telemetry.opened(place))))
      }),
    snapshot: Effect.flatMap(Clock.currentTimeMillis, (now) =>
      Effect.map(keeping.get(now), (book) =>
        [...book.values()].map((entry): PlaceHealth => ({
          place: entry.place,
          failures: entry.failures,
          breaker: entry.parkedUntil === undefined ? "closed" : entry.trial || now >= entry.parkedUntil ? "trial" : "parked",
          parkedUntil: Option.fromNullable(entry.parkedUntil),
          coolingUntil: Option.fromNullable(entry.coolingUntil),
          last: entry.last
        }))))
  })
}
