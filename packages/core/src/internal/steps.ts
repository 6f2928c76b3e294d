import * as Result from "effect/Result"
import * as Place from "../Place.js"
import type * as Policy from "../Policy.js"

/**
 * What is written against one place, as held in a book keyed by the written place.
 *
 * @internal
 */
export interface Entry {
  readonly to?: Place.Place | undefined
  readonly retrying?: Policy.Retrying | undefined
}

/** @internal */
export type Book = ReadonlyMap<string, { readonly place: Place.Place } & Entry>

/**
 * The walk from a place along its steps: starts at the place, follows `to`, and ends at the
 * second sight of a place.
 *
 * @internal
 */
export const walk = (book: Book, from: Place.Place): ReadonlyArray<Place.Place> => {
  const seen = new Set<string>()
  const out: Array<Place.Place> = []
  for (let at: Place.Place | undefined = from; at !== undefined && !seen.has(Place.format(at));) {
    seen.add(Place.format(at))
    out.push(at)
    at = book.get(Place.format(at))?.to
  }
  return out
}

/** @internal */
export const points = (book: Book, from: Place.Place, to: Place.Place): Result.Result<Book, "self"> => {
  if (String(from) === String(to)) return Result.fail("self")
  const next = new Map(book)
  next.set(String(from), { ...book.get(String(from)), place: from, to })
  return Result.succeed(next)
}

/** @internal */
export const retrying = (book: Book, place: Place.Place, value: Policy.Retrying): Book => {
  const next = new Map(book)
  next.set(String(place), { ...book.get(String(place)), place, retrying: value })
  return next
}

/** @internal */
export const clear = (book: Book, place: Place.Place): Book => {
  const next = new Map(book)
  next.delete(String(place))
  return next
}
