import * as Nearest from "@fallback/core/Nearest"
import type * as CliError from "effect/cli/CliError"
import type * as HelpDoc from "effect/cli/HelpDoc"

import { choicesOf, type Entry } from "./help.js"

/** The command being run, as `before` found it: its entry and its help document. */
export interface Ran {
  readonly entry: Entry
  readonly doc: HelpDoc.HelpDoc
}

const kindOf = (expected: string) => /integer|finite number/i.test(expected) ? "a whole number" : expected

/** What effect/cli found wrong, in the product's words. */
const reasonOf = (error: CliError.NonShowHelpErrors, doc: HelpDoc.HelpDoc | undefined): string => {
  switch (error._tag) {
    case "MissingArgument":
      return `${error.argument.toUpperCase()} is missing`
    case "MissingOption":
      return `--${error.option} is needed`
    case "UnexpectedArgument":
      return `'${error.arguments[0] ?? ""}' is one argument too many`
    case "InvalidValue": {
      if (error.kind === "argument") return `'${error.value}' is not ${kindOf(error.expected)}`
      if (error.value === "") return `--${error.option} needs a value`
      const flag = doc?.flags.find((f) => f.name === error.option)
      const choices = flag === undefined ? undefined : choicesOf(flag)
      return choices === undefined
        ? `--${error.option} takes ${kindOf(error.expected)}, not '${error.value}'`
        : `--${error.option} is one of ${choices.join(", ")}, not '${error.value}'`
    }
    case "UnrecognizedOption":
      return `${error.option} is not an option`
    case "UnknownSubcommand":
      return `${error.subcommand} is not a command`
    case "DuplicateOption":
    case "ValidationError":
    case "UserError":
      return error.message.length === 0 ? "these arguments do not read" : error.message
  }
}

/**
 * A usage error effect/cli found, told the product's way: what is wrong, then how the command is
 * called and where its help is.
 *
 * @internal
 */
export const told = (errors: ReadonlyArray<CliError.NonShowHelpErrors>, ran: Ran | undefined): string => {
  const reason = errors.length === 0 ? "these arguments do not read" : reasonOf(errors[0]!, ran?.doc)
  return ran === undefined
    ? `${reason}; fallback --help lists the commands and how to call them`
    : `${reason}; usage: ${ran.entry.usage} (fallback ${ran.entry.name} --help explains each)`
}

/**
 * " (did you mean X?)" for a misspelt command, option or model, when a known name is a typo away:
 * those nearest of all, in alphabetical order.
 *
 * @internal
 */
export const didYouMean = (name: string, known: Iterable<string>): string => {
  const close = Nearest.nearest(name, known)
  if (close.length === 0) return ""
  const best = Nearest.distance(name.toLowerCase(), close[0]!.toLowerCase())
  const nearest = close.filter((candidate) => Nearest.distance(name.toLowerCase(), candidate.toLowerCase()) === best)
  return ` (did you mean ${[...nearest].sort().join(" or ")}?)`
}
