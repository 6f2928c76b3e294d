import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

import * as Failure from "../Failure.js"
import * as Place from "../Place.js"
import { apply, type Book, type Breaker, type Entry, type Lease, type Patch } from "./health.js"
import { excerpt } from "./secret.js"
import * as SharedFile from "./sharedFile.js"

/** A time a Date can hold, in epoch millis: a file with any other reads as no file. */
const Instant = Schema.Number.pipe(Schema.finite(), Schema.between(0, 8.64e15))

const Stored = Schema.Struct({
  place: Place.FromString,
  failures: Schema.NonNegativeInt,
  parkedUntil: Schema.optionalWith(Instant, { exact: true }),
  // `true` was written before trials were leased: it is given back a park after the park ends
  trial: Schema.optionalWith(Schema.Union(Schema.Boolean, Schema.Struct({ by: Schema.String, until: Instant })), {
    exact: true
  }),
  coolingUntil: Schema.optionalWith(Instant, { exact: true }),
  last: Failure.Failure
})

const Places = Schema.Struct({ places: Schema.Array(Stored) })
const Document = Schema.parseJson(Places)

/** What the file keeps of what a backend said: enough to know what happened, never a whole echoed prompt. */
const keptOfSaid = 200

/**
 * The book of a health file's text. A file that does not read is an empty book (the health of
 * places is what recent turns found, not a person's settings: losing it restarts the breakers).
 * A trial whose lease has ended (its taker never answered it) is as good as given back.
 *
 * @internal
 */
export const decode = (text: Option.Option<string>, breaker: Breaker, now: number): Map<string, Entry> =>
  Option.match(text, {
    onNone: () => new Map(),
    onSome: (content) =>
      Either.match(Schema.decodeUnknownEither(Document)(content), {
        onLeft: () => new Map(),
        onRight: ({ places }) =>
          new Map(places.map((stored) => [Place.format(stored.place), {
            place: stored.place,
            failures: stored.failures,
            parkedUntil: stored.parkedUntil,
            trial: leaseOf(stored.trial, stored.parkedUntil, breaker, now),
            coolingUntil: stored.coolingUntil,
            last: stored.last
          }]))
      })
  })

const leaseOf = (
  stored: boolean | Lease | undefined,
  parkedUntil: number | undefined,
  breaker: Breaker,
  now: number
): Lease | undefined => {
  const lease = stored === true && parkedUntil !== undefined
    ? { by: "", until: parkedUntil + breaker.parkMillis }
    : typeof stored === "object"
    ? stored
    : undefined
  return lease !== undefined && now < lease.until ? lease : undefined
}

/** @internal */
export const encode = (book: Book): string => {
  const { places } = Schema.encodeSync(Places)({
    places: [...book.values()].map((entry) => ({
      place: entry.place,
      failures: entry.failures,
      last: entry.last,
      ...(entry.trial === undefined ? {} : { trial: entry.trial }),
      ...(entry.parkedUntil === undefined ? {} : { parkedUntil: entry.parkedUntil }),
      ...(entry.coolingUntil === undefined ? {} : { coolingUntil: entry.coolingUntil })
    }))
  })
  const kept = places.map((stored) => ({
    ...stored,
    last: { ...stored.last, said: excerpt(stored.last.said, keptOfSaid) }
  }))
  return `${JSON.stringify({ places: kept })}\n`
}

/**
 * A book kept in a file: read without the lock, and written under it only when a change makes a
 * new book (a turn that lands at a healthy place reads and never writes). Health never fails a
 * turn: a file that cannot be written is left as it is.
 *
 * @internal
 */
export const fileBook = (file: string, breaker: Breaker) =>
  Effect.map(SharedFile.make(file, Duration.seconds(10)), (shared) => {
    const read = (now: number) =>
      Effect.map(Effect.orElseSucceed(shared.text, Option.none), (text) => decode(text, breaker, now))
    return {
      get: (now: number) => read(now),
      modify: <A>(now: number, change: (book: Book) => readonly [A, ReadonlyArray<Patch>]) =>
        Effect.flatMap(read(now), (book) => {
          const [first, patches] = change(book)
          if (patches.length === 0) return Effect.succeed(first)
          return Effect.flatMap(read(now), (current) => {
            const [answer, again] = change(current)
            if (again.length === 0) return Effect.succeed(answer)
            apply(current, again)
            return Effect.as(shared.replace(encode(current)), answer)
          }).pipe(
            shared.edit((problem) => problem),
            Effect.orElseSucceed(() => first)
          )
        })
    }
  })
