import * as ConfigFile from "@fallback/core/ConfigFile"
import type * as Place from "@fallback/core/Place"
import type * as Steps from "@fallback/core/Steps"
import * as Equal from "effect/Equal"
import * as Option from "effect/Option"
import * as Result from "effect/Result"

/**
 * The page: the steps as the file had them, the steps as edited, the row the cursor is on (the
 * step rows, then `add`, then `save`) and a line telling what just happened.
 *
 * @internal
 */
export interface Page {
  readonly file: string
  readonly saved: ReadonlyArray<Steps.Step>
  readonly rows: ReadonlyArray<Steps.Step>
  readonly cursor: number
  readonly notice: string | undefined
}

/**
 * What has become of a row since the file was read.
 *
 * @internal
 */
export type Status = "new" | "changed" | "same"

/**
 * The page over the steps a file holds, the cursor on the first row.
 *
 * @internal
 */
export const make = (file: string, steps: ReadonlyArray<Steps.Step>): Page => ({
  file,
  saved: steps,
  rows: steps,
  cursor: 0,
  notice: undefined
})

const key = (place: Place.Place) => String(place)

const find = (steps: ReadonlyArray<Steps.Step>, place: Place.Place) =>
  steps.find((step) => key(step.place) === key(place))

/**
 * Whether a row is new, changed, or as the file has it.
 *
 * @internal
 */
export const statusOf = (page: Page, step: Steps.Step): Status => {
  const before = find(page.saved, step.place)
  return before === undefined
    ? "new"
    : Equal.equals(before.to, step.to) && Equal.equals(before.retrying, step.retrying)
    ? "same"
    : "changed"
}

/**
 * The places whose steps the file has and the page has removed.
 *
 * @internal
 */
export const removed = (page: Page): ReadonlyArray<Place.Place> =>
  page.saved.filter((step) => find(page.rows, step.place) === undefined).map((step) => step.place)

/**
 * Every unsaved change, as `PLACE new|changed|removed`.
 *
 * @internal
 */
export const changes = (page: Page): ReadonlyArray<string> => [
  ...page.rows.flatMap((step) => {
    const status = statusOf(page, step)
    return status === "same" ? [] : [`${key(step.place)} ${status}`]
  }),
  ...removed(page).map((place) => `${key(place)} removed`)
]

/**
 * The rows the cursor moves over: the steps, `add` and `save`.
 *
 * @internal
 */
export const length = (page: Page): number => page.rows.length + 2

/**
 * Moves the cursor by `by` rows, round from the last to the first and back.
 *
 * @internal
 */
export const move = (page: Page, by: number): Page => ({
  ...page,
  cursor: (page.cursor + by + length(page)) % length(page),
  notice: undefined
})

/**
 * What the cursor is on.
 *
 * @internal
 */
export const at = (page: Page): Steps.Step | "add" | "save" =>
  page.cursor < page.rows.length ? page.rows[page.cursor]! : page.cursor === page.rows.length ? "add" : "save"

/**
 * Says a line under the page.
 *
 * @internal
 */
export const tell = (page: Page, notice: string): Page => ({ ...page, notice })

/**
 * Writes a step on the page (a new row, or over its place's row), the cursor on it. A step that
 * says nothing, with nowhere to go and no tries, is removed.
 *
 * @internal
 */
export const put = (page: Page, step: Steps.Step, notice: string): Page => {
  if (Option.isNone(step.to) && Option.isNone(step.retrying)) return remove(page, step.place, notice)
  const rows = [...page.rows.filter((row) => key(row.place) !== key(step.place)), step].sort((a, b) =>
    key(a.place) < key(b.place) ? -1 : 1
  )
  return { ...page, rows, cursor: rows.indexOf(step), notice }
}

/**
 * Takes a place's row off the page.
 *
 * @internal
 */
export const remove = (page: Page, place: Place.Place, notice: string): Page => {
  const rows = page.rows.filter((row) => key(row.place) !== key(place))
  return { ...page, rows, cursor: Math.min(page.cursor, rows.length), notice }
}

/**
 * The page's changes applied to the document as it is at save: only the places the page changed
 * are written, so what another writer did meanwhile to other places stays.
 *
 * @internal
 */
export const land = (page: Page) => (document: ConfigFile.Document): Result.Result<ConfigFile.Document> => {
  const book = new Map(ConfigFile.bookOf(document))
  for (const place of removed(page)) book.delete(key(place))
  for (const step of page.rows) {
    if (statusOf(page, step) === "same") continue
    book.set(key(step.place), {
      place: step.place,
      to: Option.getOrUndefined(step.to),
      retrying: Option.getOrUndefined(step.retrying)
    })
  }
  return Result.succeed(ConfigFile.withBook(document, book))
}
