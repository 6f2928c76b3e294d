import * as Either from "effect/Either"
import { echo, unprintable } from "./echo.js"

/** @internal */
export const cliPattern = /^[a-z0-9-]+$/

/** @internal */
export const accountPattern = /^[A-Za-z0-9._-]+$/

/** @internal */
export const modelPattern =
  /^[^-\s\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff][^\s\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]*$/

/** @internal */
export type Part = "cli" | "account" | "model"

/** @internal */
export interface Problem {
  readonly part: Part
  readonly reason: string
}

/** @internal */
export interface Parts {
  readonly cli: string
  readonly account?: string | undefined
  readonly model: string
}

const problem = (part: Part, reason: string): Either.Either<never, Problem> => Either.left({ part, reason })

/**
 * Splits `CLI[@ACCOUNT]/MODEL`: the first `/` ends the CLI part and the first `@` before it
 * starts the account, so a model may hold `/`, `:` and `@` of its own.
 *
 * @internal
 */
export const split = (input: string): Either.Either<Parts, Problem> => {
  const slash = input.indexOf("/")
  if (slash === -1) {
    return problem("model", "there is no \"/\" and so no model")
  }
  const head = input.slice(0, slash)
  const model = input.slice(slash + 1)
  const at = head.indexOf("@")
  const cli = at === -1 ? head : head.slice(0, at)
  const account = at === -1 ? undefined : head.slice(at + 1)
  if (cli.length === 0) {
    return problem("cli", "the CLI is empty")
  }
  if (!cliPattern.test(cli)) {
    return problem("cli", `the CLI ${echo(cli)} may hold only lowercase letters, digits and "-"`)
  }
  if (account !== undefined && account.length === 0) {
    return problem("account", "the account after \"@\" is empty")
  }
  if (account !== undefined && !accountPattern.test(account)) {
    return problem("account", `the account ${echo(account)} may hold only letters, digits, ".", "_" and "-"`)
  }
  if (model.length === 0) {
    return problem("model", "the model after \"/\" is empty")
  }
  if (model.startsWith("-")) {
    return problem("model", `the model ${echo(model)} starts with "-", which its CLI would read as an option`)
  }
  if (unprintable.test(model)) {
    return problem("model", `the model ${echo(model)} holds a control character`)
  }
  if (!modelPattern.test(model)) {
    return problem("model", `the model ${echo(model)} may not hold spaces`)
  }
  return Either.right({ cli, account, model })
}

/** @internal */
export const join = (parts: Parts): string =>
  parts.account === undefined ? `${parts.cli}/${parts.model}` : `${parts.cli}@${parts.account}/${parts.model}`
