/**
 * What is known about each place (account × model): failures in a row, its circuit breaker, and
 * any cooldown. A parked or cooling place is skipped without a request.
 *
 * The breaker: after `failures` failures in a row (5) a place is parked for `park` (60 s); then
 * exactly one trial request is let through, leased to whoever took it until it is answered, given
 * back (its turn was interrupted), or its lease ends (its process was killed). Its success clears
 * the place to a clean slate; its failure parks it again at once. A single success clears the
 * count. A breaker opens once: failures of requests let through before it opened change nothing.
 *
 * `Health` is the store interface the engine uses; where health is kept is the store's business:
 * in memory ({@link Health.layerMemory}), in a file several processes share
 * ({@link Health.layerFile}), in Redis across machines (`@fallback/redis`), or in a store of your
 * own: implement `Health` whole, or give {@link fromKeeping} a {@link Keeping} that changes a book
 * of {@link Entry}s atomically, and it keeps the rules above.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Path from "effect/Path"

import type * as Failure from "./Failure.js"
import * as host from "./internal/host.js"
import * as internal from "./internal/store/health.js"
import * as healthFile from "./internal/store/healthFile.js"
import * as telemetry from "./internal/telemetry/index.js"
import * as Notice from "./Notice.js"
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
  /** How long a trial may be out before it is given back to the next taker (the park by default). */
  readonly trial?: Duration.Duration | undefined
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
export class Health extends Context.Service<Health, Health.Service>()("@fallback/core/Health") {
  /**
   * Health held in memory, with the given breaker (the breaker preset's numbers by default).
   *
   * @since 0.1.0
   */
  static readonly layerMemory = (breaker: Breaker = defaultBreaker): Layer.Layer<Health> =>
    Layer.sync(Health, () => memory(breaker))

  /**
   * Health kept in a file several processes share (the command line keeps it beside the config
   * file), so a breaker opened by one run is seen by the next. A turn that lands at a healthy place
   * reads it and writes nothing; a file that does not read counts as no failures recorded. Every
   * change is read, made and renamed into place under the file's lock, waited for up to a minute
   * (a holder no longer running is taken over); a change that cannot be written is said in a
   * notice, and a trial whose lease could not be written is not handed out.
   *
   * @since 0.1.0
   */
  static readonly layerFile = (
    file: string,
    breaker: Breaker = defaultBreaker
  ): Layer.Layer<Health, never, FileSystem.FileSystem | Path.Path> =>
    Layer.effect(
      Health,
      Effect.map(
        healthFile.fileBook(file, numbersOf(breaker)),
        (book) => fromKeeping({ ...book, store: `the health file ${file}` }, breaker)
      )
    )
}

/**
 * @since 0.1.0
 * @category services
 */
export declare namespace Health {
  /**
   * What {@link Health} does: the store interface the engine uses.
   *
   * @since 0.1.0
   * @category models
   */
  export interface Service {
    /** Whether a request may go to a place now; a `Trial` admission is handed out once per park. */
    readonly admit: (place: Place.Place) => Effect.Effect<Admission>
    /** A request at a place was answered. */
    readonly succeeded: (place: Place.Place) => Effect.Effect<void>
    /** A request at a place failed. */
    readonly failed: (place: Place.Place, failed: Failed) => Effect.Effect<void>
    /** A trial this service handed out will not be answered (its turn was interrupted): the next taker may have it. */
    readonly giveBack: (place: Place.Place) => Effect.Effect<void>
    /** Forgets what is held against a place, or against every place: a clean slate. */
    readonly clear: (place?: Place.Place) => Effect.Effect<void>
    /** Every place with something held against it. */
    readonly snapshot: Effect.Effect<ReadonlyArray<PlaceHealth>>
  }
}

const numbersOf = (breaker: Breaker): internal.Breaker => ({
  failures: breaker.failures,
  parkMillis: Duration.toMillis(breaker.park),
  trialMillis: Duration.toMillis(breaker.trial ?? breaker.park)
})

/**
 * A trial out at a parked place: which Health service took it, and when it is given back if that
 * service never answers it (epoch milliseconds).
 *
 * @since 0.1.0
 * @category models
 */
export type Lease = internal.Lease

/**
 * What a store keeps about one place.
 *
 * @since 0.1.0
 * @category models
 */
export type Entry = internal.Entry

/**
 * One change to a store: the entry at a key (`Place.format` of its place) set, or removed.
 *
 * @since 0.1.0
 * @category models
 */
export type Patch = internal.Patch

/**
 * A change a store could not write, and why (`reason`, read by people: never a secret). Nothing of
 * the change was kept.
 *
 * @since 0.1.0
 * @category models
 */
export type Unwritten = internal.Unwritten

/**
 * A store of entries, one per place with something held against it. `modify` reads the book and
 * applies the patches `change` returns as one step no other writer interleaves with (`change` may
 * be called more than once); no patch means nothing is written. A change it cannot write fails
 * with {@link Unwritten} (never an answer from a book that was not written): the breaker's rules
 * then say so in a notice naming `store`, and a trial that could not be leased is not handed out.
 *
 * @since 0.1.0
 * @category models
 */
export interface Keeping {
  readonly store?: string | undefined
  readonly get: (now: number) => Effect.Effect<ReadonlyMap<string, Entry>>
  readonly modify: <A>(
    now: number,
    change: (book: ReadonlyMap<string, Entry>) => readonly [A, ReadonlyArray<Patch>]
  ) => Effect.Effect<A, Unwritten>
}

/**
 * Says that a change to health was not kept: a `Sharing` notice with `unwritten`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const notWritten = (store: string, reason: string): Effect.Effect<void> =>
  Effect.gen(function*() {
    const notices = yield* Notice.Notices
    yield* notices.publish(Notice.Notice.Sharing({ store, shared: false, reason, unwritten: true }))
  })

let services = 0

/**
 * A name for one Health service, unique across processes and machines: who holds a trial.
 *
 * @since 0.1.0
 * @category constructors
 */
export const owner = (): string => `${host.pid}.${(services++).toString(36)}.${Math.random().toString(36).slice(2, 10)}`

/**
 * Health held in this process's memory (what {@link Health.layerMemory} provides, and what a
 * shared store falls back on while it cannot be reached).
 *
 * @since 0.1.0
 * @category constructors
 */
export const memory = (breaker: Breaker = defaultBreaker): Health.Service => {
  const book = new Map<string, internal.Entry>()
  return fromKeeping({
    get: () => Effect.sync(() => new Map(book)),
    modify: (_, change) =>
      Effect.sync(() => {
        const [answer, patches] = change(book)
        internal.apply(book, patches)
        return answer
      })
  }, breaker)
}

/**
 * The breaker's rules over a store of entries: a Health service whose every change is one
 * `modify` of the store.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromKeeping = (keeping: Keeping, breaker: Breaker = defaultBreaker): Health.Service => {
  const numbers = numbersOf(breaker)
  const by = owner()
  const none: ReadonlyArray<internal.Patch> = []
  const clean = [internal.clean, none] as const
  const change = (entry: internal.Entry | undefined, was: internal.Entry | undefined, key: string) =>
    entry === was ? none : [{ key, entry }]
  const store = keeping.store ?? "the health store"
  // A change that was not written is said, never answered as if it had been.
  const unkept = (what: (place: string) => string, place?: Place.Place) => (problem: internal.Unwritten) =>
    notWritten(store, `${problem.reason}; ${what(place === undefined ? "every place" : Place.format(place))}`)
  return {
    admit: (place) =>
      Effect.clockWith((clock) => {
        const now = clock.currentTimeMillisUnsafe()
        let seen: internal.Entry | undefined
        return keeping.modify(now, (book) => {
          const key = Place.format(place)
          const was = book.get(key)
          seen = was
          if (was === undefined) return clean
          const [admission, entry] = internal.admit(was, now, by, numbers)
          return [admission, change(entry, was, key)]
        }).pipe(
          // The only change an admission writes is a trial's lease: unwritten, the trial is not handed out.
          Effect.catch((problem) =>
            Effect.as(
              unkept((at) => `the trial at ${at} is not taken, and the place is skipped`, place)(problem),
              {
                _tag: "Skip",
                why: "parked",
                until: seen?.parkedUntil ?? now,
                last: seen!.last
              } satisfies internal.Admission
            )
          )
        )
      }),
    succeeded: (place) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        keeping.modify(now, (book) => {
          const key = Place.format(place)
          const was = book.get(key)
          return [was?.parkedUntil !== undefined, was !== undefined ? [{ key, entry: undefined }] : none]
        }).pipe(
          Effect.matchEffect({
            onFailure: unkept((at) => `the success at ${at} is not recorded`, place),
            onSuccess: (wasParked) => wasParked ? telemetry.cleared(place) : Effect.void
          })
        )),
    failed: (place, { counts, coolUntil, failure }) =>
      Effect.clockWith((clock) => {
        const now = clock.currentTimeMillisUnsafe()
        return keeping.modify(now, (book) => {
          const key = Place.format(place)
          const was = book.get(key)
          const entry = internal.failed(
            was,
            place,
            failure,
            counts,
            Option.getOrUndefined(coolUntil),
            numbers,
            now,
            by
          )
          return [entry.parkedUntil !== was?.parkedUntil, [{ key, entry }]]
        }).pipe(
          Effect.matchEffect({
            onFailure: unkept((at) => `the failure at ${at} is not recorded`, place),
            onSuccess: (parks) => parks ? telemetry.opened(place) : Effect.void
          })
        )
      }),
    giveBack: (place) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        keeping.modify(now, (book) => {
          const key = Place.format(place)
          const was = book.get(key)
          return [undefined, change(internal.givenBack(was, by), was, key)]
        }).pipe(Effect.catch(unkept((at) => `the trial at ${at} is not given back before its lease ends`, place)))),
    clear: (place) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        keeping.modify(now, (book) => {
          const keys = place === undefined
            ? [...book.keys()]
            : book.has(Place.format(place))
            ? [Place.format(place)]
            : []
          return [undefined, keys.map((key) => ({ key, entry: undefined }))]
        }).pipe(Effect.catch(unkept((at) => `what is held against ${at} is not cleared`, place)))),
    snapshot: Effect.flatMap(
      Clock.currentTimeMillis,
      (now) => Effect.map(keeping.get(now), (book) => [...book.values()].map((entry) => placeHealth(entry, now)))
    )
  }
}

/**
 * How a store's entry reads in a snapshot at `now`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const placeHealth = (entry: Entry, now: number): PlaceHealth => ({
  place: entry.place,
  failures: entry.failures,
  breaker: entry.parkedUntil === undefined
    ? "closed"
    : (entry.trial !== undefined && now < entry.trial.until) || now >= entry.parkedUntil
    ? "trial"
    : "parked",
  parkedUntil: Option.fromNullishOr(entry.parkedUntil),
  coolingUntil: Option.fromNullishOr(entry.coolingUntil),
  last: entry.last
})
