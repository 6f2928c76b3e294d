import type * as Failure from "../../Failure.js"
import type * as Place from "../../Place.js"

/**
 * A trial out at a parked place: who took it (one Health service, in one process) and when it is
 * given back if its taker never answers (killed mid-trial).
 *
 * @internal
 */
export interface Lease {
  readonly by: string
  readonly until: number
}

/**
 * What is known about one place: failures in a row, when its park ends, the trial out (if one is),
 * when its cooldown ends, and the failure behind the latest of them.
 *
 * @internal
 */
export interface Entry {
  readonly place: Place.Place
  readonly failures: number
  readonly parkedUntil: number | undefined
  readonly trial: Lease | undefined
  readonly coolingUntil: number | undefined
  readonly last: Failure.Failure
}

/** @internal */
export type Book = ReadonlyMap<string, Entry>

/**
 * A change a store could not write (its lock held past its patience, a disk that refused the
 * write, a value the health schema refuses): nothing of it was kept, and `reason` says why.
 *
 * @internal
 */
export interface Unwritten {
  readonly _tag: "Unwritten"
  readonly reason: string
}

/** @internal */
export const unwritten = (reason: string): Unwritten => ({ _tag: "Unwritten", reason })

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
export const apply = (book: Map<string, Entry>, patches: ReadonlyArray<Patch>): void => {
  for (const patch of patches) {
    if (patch.entry === undefined) book.delete(patch.key)
    else book.set(patch.key, patch.entry)
  }
}

/** @internal */
export interface Breaker {
  readonly failures: number
  readonly parkMillis: number
  readonly trialMillis: number
}

/** @internal */
export type Admission =
  | { readonly _tag: "Go"; readonly held: boolean }
  | { readonly _tag: "Trial" }
  | {
    readonly _tag: "Skip"
    readonly why: "parked" | "cooling" | "trial"
    readonly until: number
    readonly last: Failure.Failure
  }

/** @internal */
export const clean: Admission = { _tag: "Go", held: false }
const held: Admission = { _tag: "Go", held: true }

/**
 * Whether a request may go to a place now (`held`: something is recorded against it, so a success
 * is worth writing). A park that has run out lets exactly one trial through, leased to `by` for
 * `trialMillis`; the others skip until it is answered, given back, or its lease ends.
 *
 * @internal
 */
export const admit = (
  entry: Entry | undefined,
  now: number,
  by: string,
  breaker: Breaker
): [Admission, Entry | undefined] => {
  if (entry === undefined) return [clean, entry]
  if (entry.coolingUntil !== undefined && now < entry.coolingUntil) {
    return [{ _tag: "Skip", why: "cooling", until: entry.coolingUntil, last: entry.last }, entry]
  }
  if (entry.parkedUntil === undefined) return [held, entry]
  if (now < entry.parkedUntil) {
    return [{ _tag: "Skip", why: "parked", until: entry.parkedUntil, last: entry.last }, entry]
  }
  if (entry.trial !== undefined && now < entry.trial.until) {
    return [{ _tag: "Skip", why: "trial", until: entry.trial.until, last: entry.last }, entry]
  }
  return [{ _tag: "Trial" }, { ...entry, trial: { by, until: now + breaker.trialMillis } }]
}

/**
 * A failure. At a closed breaker: one more in a row, and the threshold parks the place. The
 * failure of the trial `by` holds parks it again at once. Any other failure at a parked place
 * (a request let through before the park) is noted and changes no breaker: a breaker opens once.
 * `coolUntil` cools the place down as well.
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
  now: number,
  by: string
): Entry => {
  const was = entry ?? { place, failures: 0, parkedUntil: undefined, trial: undefined, coolingUntil: undefined }
  const trial = was.trial?.by === by
  const open = was.parkedUntil !== undefined
  const failures = counts && (trial || !open) ? was.failures + 1 : was.failures
  const parks = counts && (trial || (!open && failures >= breaker.failures))
  return {
    place,
    failures,
    parkedUntil: parks ? now + breaker.parkMillis : was.parkedUntil,
    trial: parks ? undefined : was.trial,
    coolingUntil: coolUntil === undefined ? was.coolingUntil : Math.max(coolUntil, was.coolingUntil ?? 0),
    last: failure
  }
}

/**
 * A trial `by` took and will not answer (its turn was interrupted): given back, so the next
 * admission after the park takes it. Anyone else's trial is left alone.
 *
 * @internal
 */
export const givenBack = (entry: Entry | undefined, by: string): Entry | undefined =>
  entry?.trial?.by === by ? { ...entry, trial: undefined } : entry
