import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as SchemaIssue from "effect/SchemaIssue"

import * as Failure from "../../Failure.js"
import * as Place from "../../Place.js"
import { excerpt } from "../secret.js"
import {
  apply,
  type Book,
  type Breaker,
  type Entry,
  type Lease,
  type Patch,
  type Unwritten,
  unwritten
} from "./health.js"
import * as SharedFile from "./sharedFile.js"

/** A time a Date can hold, in epoch millis: a file with any other reads as no file. */
// -0 is written as 0 and so would not read back as itself.
const notNegativeZero = Schema.makeFilter((n: number) => !Object.is(n, -0) || "not -0")

const Instant = Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 8.64e15 }), notNegativeZero)

const Stored = Schema.Struct({
  place: Place.FromString,
  failures: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0), notNegativeZero),
  parkedUntil: Schema.optionalKey(Instant),
  // `true` was written before trials were leased: it is given back a park after the park ends
  trial: Schema.optionalKey(Schema.Union([Schema.Boolean, Schema.Struct({ by: Schema.String, until: Instant })])),
  coolingUntil: Schema.optionalKey(Instant),
  last: Failure.Failure
})

const Places = Schema.Struct({ places: Schema.Array(Stored) })
const decodeText = Schema.decodeUnknownResult(Schema.fromJsonString(Places))
const encodePlaces = Schema.encodeResult(Places)

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
      Result.match(decodeText(content), {
        onFailure: () => new Map(),
        onSuccess: ({ places }) =>
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

/**
 * The file's text for a book, or why the health schema refuses it (a value that would not read
 * back: a time no Date holds, a count that is not one): such a book is never written.
 *
 * @internal
 */
export const encode = (book: Book): Result.Result<string, Unwritten> =>
  Result.map(
    Result.mapError(
      encodePlaces({
        places: [...book.values()].map((entry) => ({
          place: entry.place,
          failures: entry.failures,
          last: entry.last,
          ...(entry.trial === undefined ? {} : { trial: entry.trial }),
          ...(entry.parkedUntil === undefined ? {} : { parkedUntil: entry.parkedUntil }),
          ...(entry.coolingUntil === undefined ? {} : { coolingUntil: entry.coolingUntil })
        }))
      }),
      (error) => unwritten(`it holds a value health cannot keep (${refused(error)})`)
    ),
    ({ places }) => {
      const kept = places.map((stored) => ({
        ...stored,
        last: { ...stored.last, said: excerpt(stored.last.said, keptOfSaid) }
      }))
      return `${JSON.stringify({ places: kept })}\n`
    }
  )

/** Where the schema refused a value, never the value itself (it may be what a provider said). */
const refused = (error: Schema.SchemaError) =>
  formatter(error.issue).issues.map((issue) => (issue.path ?? []).join(".")).slice(0, 3).join(", ")

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

/**
 * How long a writer waits for the lock. Held, it is held for a read and a rename; a writer waits
 * behind every other writer of a busy machine (fifty processes on two loaded cores), and a turn's
 * own limits end the wait sooner. A holder that is no longer running is taken over at once.
 */
const patience = Duration.minutes(1)

/**
 * A book kept in a file: read without the lock, and written under it only when a change makes a
 * new book (a turn that lands at a healthy place reads and never writes). Under the lock the file
 * is read again, changed and renamed into place, and nothing else is done there. A change that
 * cannot be written fails with {@link Unwritten}: nothing is answered from a book that is not the
 * file's.
 *
 * @internal
 */
export const fileBook = (file: string, breaker: Breaker) =>
  Effect.map(SharedFile.make(file, patience, false), (shared) => {
    const read = (now: number) =>
      Effect.map(Effect.orElseSucceed(shared.text, () => Option.none<string>()), (text) => decode(text, breaker, now))
    // Under the lock a file that cannot be read is not taken for an empty one: writing that would lose every place.
    const readLocked = (now: number) =>
      Effect.map(
        Effect.mapError(shared.text, (error) => unwritten(`it could not be read: ${error.message}`)),
        (text) => decode(text, breaker, now)
      )
    return {
      get: (now: number) => read(now),
      modify: <A>(
        now: number,
        change: (book: Book) => readonly [A, ReadonlyArray<Patch>]
      ): Effect.Effect<A, Unwritten> =>
        Effect.flatMap(read(now), (book) => {
          const [first, patches] = change(book)
          if (patches.length === 0) return Effect.succeed(first)
          return Effect.flatMap(readLocked(now), (current) => {
            const [answer, again] = change(current)
            if (again.length === 0) return Effect.succeed(answer)
            apply(current, again)
            return Result.match(encode(current), {
              onFailure: Effect.fail,
              onSuccess: (text) =>
                Effect.as(
                  Effect.mapError(shared.replace(text), (error) =>
                    unwritten(`it could not be written: ${error.message}`)),
                  answer
                )
            })
          }).pipe(
            shared.edit((problem) =>
              unwritten(
                problem._tag === "Held"
                  ? `its lock was held by ${problem.holder} for ${Duration.format(patience)}`
                  : `its lock could not be taken: ${problem.reason}`
              )
            )
          )
        })
    }
  })
