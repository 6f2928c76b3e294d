import * as Option from "effect/Option"
import type * as Terminal from "effect/Terminal"

/**
 * What a key asks of the page.
 *
 * @internal
 */
export type PageKey = "up" | "down" | "open" | "add" | "save" | "leave" | "none"

/**
 * What a key asks of a question on the page.
 *
 * @internal
 */
export type QuestionKey = "up" | "down" | "pick" | "back" | "none"

const quits = (input: Terminal.UserInput) => input.key.ctrl && (input.key.name === "c" || input.key.name === "d")

/**
 * ctrl+j (a line feed, which Node names "enter", or "j" with ctrl) and shift+enter (where the
 * terminal reports the shift, or sends alt+enter for it as many do) save.
 *
 * @internal
 */
export const saves = (input: Terminal.UserInput): boolean =>
  (input.key.ctrl && input.key.name === "j") ||
  input.key.name === "enter" ||
  Option.contains(input.input, "\n") ||
  (input.key.name === "return" && (input.key.shift || input.key.meta))

/**
 * The page's keys: up/down move, Enter opens the row, `a` adds, shift+enter or ctrl+j saves,
 * Escape, `q` or ctrl+c leaves. Node reports a lone Escape with meta held.
 *
 * @internal
 */
export const pageKey = (input: Terminal.UserInput): PageKey => {
  if (saves(input)) return "save"
  if (quits(input) || input.key.name === "escape") return "leave"
  if (input.key.ctrl || input.key.meta) return "none"
  switch (input.key.name) {
    case "up":
    case "k":
      return "up"
    case "down":
    case "j":
    case "tab":
      return "down"
    case "return":
      return "open"
    case "a":
      return "add"
    case "q":
      return "leave"
    default:
      return "none"
  }
}

/**
 * A question's keys: up/down move, Enter picks, Escape or ctrl+c goes back to the page.
 *
 * @internal
 */
export const questionKey = (input: Terminal.UserInput): QuestionKey => {
  if (quits(input) || input.key.name === "escape") return "back"
  if (input.key.ctrl || input.key.meta) return "none"
  switch (input.key.name) {
    case "up":
    case "k":
      return "up"
    case "down":
    case "j":
    case "tab":
      return "down"
    case "return":
    case "enter":
      return "pick"
    default:
      return "none"
  }
}

/**
 * What a key does in a field a name or number is typed into.
 *
 * @internal
 */
export type FieldKey =
  | { readonly _tag: "type"; readonly text: string }
  | { readonly _tag: "erase" | "done" | "back" | "none" }

/**
 * A field's keys: printable keys type, Backspace erases, Enter is done, Escape or ctrl+c goes
 * back.
 *
 * @internal
 */
export const fieldKey = (input: Terminal.UserInput): FieldKey => {
  if (quits(input) || input.key.name === "escape") return { _tag: "back" }
  if (input.key.name === "return" || input.key.name === "enter") return { _tag: "done" }
  if (input.key.name === "backspace") return { _tag: "erase" }
  const text = Option.getOrElse(input.input, () => "")
  return !input.key.ctrl && !input.key.meta && /^[^\u0000-\u001f\u007f]+$/.test(text)
    ? { _tag: "type", text }
    : { _tag: "none" }
}
