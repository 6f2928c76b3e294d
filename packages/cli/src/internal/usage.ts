import type * as ValidationError from "@effect/cli/ValidationError"

import { type Entry, type Loaded, optionChoosing, textOfDoc } from "./help.js"

const kinds: Record<string, string> = {
  integer: "a whole number",
  float: "a number",
  boolean: "true or false",
  date: "a date"
}

// the option typed just before `value` (`--tries abc`, `--tries=abc`), if one was
const optionBefore = (typed: ReadonlyArray<string>, value: string): string | undefined => {
  for (let i = 0; i < typed.length; i++) {
    const arg = typed[i]!
    if (arg.startsWith("--") && arg.includes("=") && arg.slice(arg.indexOf("=") + 1) === value) {
      return arg.slice(0, arg.indexOf("="))
    }
    if (arg === value && i > 0 && typed[i - 1]!.startsWith("-")) return typed[i - 1]
  }
  return undefined
}

// the option among `names` typed with a value that is none of `choices`
const optionOutside = (typed: ReadonlyArray<string>, names: ReadonlyArray<string>, choices: ReadonlyArray<string>) => {
  for (let i = 0; i < typed.length; i++) {
    const arg = typed[i]!
    if (!names.includes(arg.split("=")[0]!)) continue
    const [option, inline] = arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [
      arg,
      typed[i + 1]
    ]
    if (inline !== undefined && !inline.startsWith("-") && !choices.includes(inline)) return { option, value: inline }
  }
  return undefined
}

/** What @effect/cli found wrong, in the product's words. */
const reasonOf = (said: string, typed: ReadonlyArray<string>, command: Loaded | undefined): string => {
  let found: RegExpMatchArray | null
  if ((found = said.match(/^Missing argument <([\w-]+)>(?: with choices (.*))?$/)) !== null) {
    return `${found[1]!.toUpperCase()} is missing${found[2] === undefined ? "" : ` (one of ${found[2]})`}`
  }
  if ((found = said.match(/^'(.*)' is not a (\w+)$/s)) !== null) {
    const kind = kinds[found[2]!] ?? `a ${found[2]}`
    const option = optionBefore(typed, found[1]!)
    return option === undefined
      ? `'${found[1]}' is not ${kind}`
      : `${option} takes ${kind}, not '${found[1]}'`
  }
  if ((found = said.match(/^Expected a value following option: '(.+)'$/)) !== null) {
    return `${found[1]} needs a value`
  }
  if ((found = said.match(/^Expected one of the following cases: (.*)$/)) !== null) {
    const choices = found[1]!.split(", ")
    const outside = command === undefined ? undefined : optionOutside(typed, optionChoosing(command, choices), choices)
    return outside === undefined
      ? `a value is one of ${choices.join(", ")}`
      : `${outside.option} is one of ${choices.join(", ")}, not '${outside.value}'`
  }
  if ((found = said.match(/^Received unknown argument: '(.*)'$/s)) !== null) {
    return `'${found[1]}' is one argument too many`
  }
  if ((found = said.match(/^Expected to find option: '(.+)'$/)) !== null) {
    return `${found[1]} is needed`
  }
  return said.length === 0 ? "these arguments do not read" : said
}

/**
 * A usage error @effect/cli found, told the product's way: what is wrong, then how the command is
 * called and where its help is.
 *
 * @internal
 */
export const told = (
  error: ValidationError.ValidationError,
  ran: { readonly entry: Entry; readonly command: Loaded } | undefined,
  typed: ReadonlyArray<string>
): string => {
  const said = "error" in error ? textOfDoc(error.error).trim() : ""
  const reason = reasonOf(said.split("\n")[0]!.trim(), typed, ran?.command)
  return ran === undefined
    ? `${reason}; fallback --help lists the commands and how to call them`
    : `${reason}; usage: ${ran.entry.usage} (fallback ${ran.entry.name} --help explains each)`
}
