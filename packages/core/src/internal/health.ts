import type * as Failure from "../Failure.js"
import type * as Place from "../Place.js"

/**
 * What is known about one place: failures in a row, when its park ends, whether its one trial is
 * out, when its cooldown ends, and the failure behind the latest of them.
 *
 * @internal
 */
export interface Entry {
  readonly place: Place.Place
  readonly failures: number
  readonly parkedUntil: number | undefined
  readonly trial: boolean
  readonly coolingUntil: number | undefined
  readonly last: Failure.Failure
}

/** @internal */
export type Book = ReadonlyMap<string, Entry>

/**
 * One change to a book: the entry at a key set, or removed (`undefined`). A change is made in
 * place, so recording a failure costs the same however many places have something recorded.
 *
 * @internal
 */
export interface Patch {
  readonly key: string
  readonly entry: Entry | undefined
}

/** @internal */
export const apply = (book: Map<string, Entry>, patch: Patch): void => {
  if (patch.entry === undefined) book.delete(patch.key)
  else book.set(patch.key, patch.entry)
}

/** @internal */
export interface Breaker {
  readonly failures: number
  readonly parkMillis: number
}

/** @internal */
export type Admission =
  | { readonly _tag: "Go"; readonly held: boolean }
  | { readonly _tag: "Trial" }
  | { readonly _tag: "Skip"; readonly why: "parked" | "cooling" | "trial"; readonly until: number; readonly last: Failure.Failure }

/** @internal */
export const clean: Admission = { _tag: "Go", held: false }
const held: Admission = { _tag: "Go", held: true }

/**
 * Whether a request may go to a place now (`held`: something is recorded against it, so a success
 * is worth writing). A park that has run out lets exactly one trial
 * through; the others skip until it is answered.
 *
 * @internal
 */
export const admit = (entry: Entry | undefined, now: number): [Admission, Entry | undefined] => {
  if (entry === undefined) return [clean, entry]
  if (entry.coolingUntil !== undefined && now < entry.coolingUntil) {
    return [{ _tag: "Skip", why: "cooling", until: entry.coolingUntil, last: entry.last }, entry]
  }
  if (entry.parkedUntil === undefined) return [held, entry]
  if (now < entry.parkedUntil) return [{ _tag: "Skip", why: "parked", until: entry.parkedUntil, last: entry.last }, entry]
  if (entry.trial) return [{ _tag: "Skip", why: "trial", until: entry.parkedUntil, last: entry.last }, entry]
  return [{ _tag: "Trial" }, { ...entry, trial: true }]
}

/**
 * A failure: one more in a row; the threshold parks the place, and a failed trial parks it again
 * at once. `coolUntil` cools it down as well.
 *
 * @internal
 */
export const failed = (
  entry: Entry | undefined,
  place: Place.Place,
  failure: Failure.Failure,
  counts: boolean,
  coolUntil: number | undefined,
  breaker: Breaker,
  now: number
): Entry => {
  const was = entry ?? { place, failures: 0, parkedUntil: undefined, trial: false, coolingUntil: undefined }
  const failures = counts ? was.failures + 1 : was.failures
  const parks = counts && (was.trial || failures >= breaker.failures)
  return {
    place,
    failures,
    parkedUntil: parks ? now + breaker.parkMillis : was.parkedUntil,
    trial: false,
    coolingUntil: coolUntil === undefined ? was.coolingUntil : Math.max(coolUntil, was.coolingUntil ?? 0),
    last: failure
  }
}
