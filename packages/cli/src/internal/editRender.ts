import * as Place from "@fallback/core/Place"
import type * as Steps from "@fallback/core/Steps"
import * as Duration from "effect/Duration"
import * as Option from "effect/Option"

import * as State from "./editState.js"
import { formatTime } from "./seconds.js"
import { table } from "./table.js"

/**
 * One choice of a question: what it says, a word about it, and what choosing it gives.
 *
 * @internal
 */
export interface Choice<A> {
  readonly title: string
  readonly description?: string | undefined
  readonly value: A
}

const escape = "\u001b["

const paint = (colour: boolean, code: string, text: string) => colour ? `${escape}${code}m${text}${escape}0m` : text

const pointer = (here: boolean) => here ? "❯" : " "

/**
 * A step's tries and policy, or `-` for each when it says none.
 *
 * @internal
 */
export const triesOf = (step: Steps.Step): [string, string] =>
  Option.match(step.retrying, {
    onNone: () => ["-", "-"],
    onSome: (retrying) => [String(retrying.tries), retrying.policy]
  })

/**
 * Where a step's turns go, or `-`.
 *
 * @internal
 */
export const targetOf = (step: Steps.Step): string => Option.match(step.to, { onNone: () => "-", onSome: Place.format })

/**
 * The whole walk a failed turn at a step's place takes, as the page stands (ending at the second
 * sight of a place), or `-`.
 *
 * @internal
 */
export const chainOf = (page: State.Page, step: Steps.Step): string => {
  const seen = new Set([Place.format(step.place)])
  const walk: Array<string> = []
  let next = step.to
  while (Option.isSome(next)) {
    const at = Place.format(next.value)
    walk.push(at)
    if (seen.has(at)) break
    seen.add(at)
    next = Option.flatMap(
      Option.fromNullishOr(page.rows.find((row) => Place.format(row.place) === at)),
      (row) => row.to
    )
  }
  return walk.length === 0 ? "-" : walk.join(" → ")
}

const timeoutOf = (step: Steps.Step): string =>
  Option.match(step.retrying, {
    onNone: () => "-",
    onSome: (retrying) => Duration.isZero(retrying.timeout) ? "none" : formatTime(retrying.timeout)
  })

const marks: Record<State.Status, string> = { new: "new", changed: "changed", same: "" }

/**
 * The lines `count` rows take in `room` lines, the cursor's row among them: all of them when they
 * fit (or the room is not known), else a window round the cursor with how many more lie above
 * and below.
 */
const windowed = (
  lines: ReadonlyArray<string>,
  cursor: number,
  room: number
): ReadonlyArray<string> => {
  const fits = room - 2
  if (room <= 0 || lines.length <= room || fits < 1) return lines
  const start = Math.min(Math.max(cursor - Math.floor(fits / 2), 0), lines.length - fits)
  const end = start + fits
  return [
    start === 0 ? "" : `  ↑ ${start} more`,
    ...lines.slice(start, end),
    end === lines.length ? "" : `  ↓ ${lines.length - end} more`
  ]
}

/**
 * The page's lines, in `height` rows of terminal (0: not known): a row per place with its
 * status, `add` and `save` below, what is unsaved, the notice and the keys.
 *
 * @internal
 */
export const pageLines = (page: State.Page, colour: boolean, height: number): ReadonlyArray<string> => {
  const statuses = page.rows.map((step) => State.statusOf(page, step))
  const grid = table(
    ["PLACE", "TURNS GO TO (THE WHOLE CHAIN)", "TRIES", "POLICY", "TIMEOUT", ""],
    page.rows.map((step, i) => [
      Place.format(step.place),
      chainOf(page, step),
      ...triesOf(step),
      timeoutOf(step),
      marks[statuses[i]!]
    ])
  ).split("\n")
  const row = (i: number, text: string, status: State.Status = "same") => {
    const here = page.cursor === i
    const line = `${pointer(here)} ${text}`
    return here ? paint(colour, "36;1", line) : status === "same" ? line : paint(colour, "33", line)
  }
  const unsaved = State.changes(page)
  return [
    `fallback edit: the steps in ${page.file}`,
    "",
    ...(page.rows.length === 0 ? ["  No steps yet: press a to add one."] : [`  ${grid[0]}`]),
    ...windowed(
      [
        ...page.rows.map((_, i) => row(i, grid[i + 1]!, statuses[i])),
        row(page.rows.length, "+ add a step"),
        row(page.rows.length + 1, unsaved.length === 0 ? "save" : `save ${unsaved.length} unsaved`)
      ],
      page.cursor,
      height === 0 ? 0 : height - 7
    ),
    "",
    unsaved.length === 0 ? "Nothing unsaved." : paint(colour, "33", `Unsaved: ${unsaved.join(", ")}`),
    ...(page.notice === undefined ? [] : [page.notice]),
    paint(colour, "2", "↑↓ move · enter open · a add · shift+enter or ctrl+j save · esc or q leave")
  ]
}

/**
 * A question's lines, in `height` rows of terminal (0: not known): what it asks, its choices with
 * the cursor on one, and how to go back.
 *
 * @internal
 */
export const questionLines = <A>(
  message: string,
  choices: ReadonlyArray<Choice<A>>,
  cursor: number,
  colour: boolean,
  height: number
): ReadonlyArray<string> => {
  const width = Math.max(...choices.map((choice) => choice.title.length))
  const lines = choices.map((choice, i) => {
    const line = `${pointer(cursor === i)} ${
      choice.description === undefined ? choice.title : `${choice.title.padEnd(width)}  ${choice.description}`
    }`
    return cursor === i ? paint(colour, "36;1", line) : line
  })
  return [
    paint(colour, "1", message),
    ...windowed(lines, cursor, height === 0 ? 0 : height - 3),
    paint(colour, "2", "↑↓ move · enter choose · esc back")
  ]
}

/**
 * A field's lines: what it asks, what has been typed, what is wrong with it, and the keys.
 *
 * @internal
 */
export const fieldLines = (
  message: string,
  text: string,
  error: string | undefined,
  colour: boolean
): ReadonlyArray<string> => [
  paint(colour, "1", message),
  `› ${text}${colour ? paint(colour, "7", " ") : "_"}`,
  ...(error === undefined ? [] : [paint(colour, "31", error)]),
  paint(colour, "2", "type · enter done · esc back")
]

const cut = (line: string, columns: number) => {
  const plain = line.replace(/\u001b\[[0-9;]*m/g, "")
  return columns <= 0 || plain.length < columns ? line : plain.slice(0, columns - 1)
}

/**
 * Lines as one frame for the terminal, each cut to fit its width so that erasing the frame
 * erases all of it; the cursor hidden while it shows.
 *
 * @internal
 */
export const frame = (lines: ReadonlyArray<string>, columns: number): string =>
  `${escape}?25l` + lines.map((line) => cut(line, columns)).join("\n")

/**
 * Erases a frame of `count` lines, leaving the cursor where it began.
 *
 * @internal
 */
export const erase = (count: number): string =>
  `${escape}2K` + `${escape}1A${escape}2K`.repeat(Math.max(count - 1, 0)) + "\r"
