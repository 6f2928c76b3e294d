import * as Result from "effect/Result"
import { echo, unprintable } from "./echo.js"

/** @internal */
export const cliPattern = /^[a-z0-9-]+$/

/**
 * An account's name becomes a folder's and a file's name: it starts with a letter or a digit (so
 * never `.`, `..` or an option's `-`), holds letters, digits, `.`, `_` and `-` (no separator), and
 * is at most {@link longestAccount} characters long.
 *
 * @internal
 */
export const accountPattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/

/** @internal */
export const longestAccount = 64

/**
 * What is wrong with an account's name, in words a person can act on; none when it is one.
 *
 * @internal
 */
export const accountProblem = (account: string): string | undefined => {
  if (account.length === 0) return "the account after \"@\" is empty"
  if (!/^[A-Za-z0-9._-]+$/.test(account)) {
    return `the account ${echo(account)} may hold only letters, digits, ".", "_" and "-"`
  }
  if (!/^[A-Za-z0-9]/.test(account)) {
    return `the account ${echo(account)} must start with a letter or a digit`
  }
  if (account.length > longestAccount) {
    return `the account ${echo(account)} is ${account.length} characters long; an account is at most ${longestAccount}`
  }
  return undefined
}

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

const problem = (part: Part, reason: string): Result.Result<never, Problem> => Result.fail({ part, reason })

/**
 * Splits `CLI[@ACCOUNT]/MODEL`: the first `/` ends the CLI part and the first `@` before it
 * starts the account, so a model may hold `/`, `:` and `@` of its own.
 *
 * @internal
 */
export const split = (input: string): Result.Result<Parts, Problem> => {
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
  const wrong = account === undefined ? undefined : accountProblem(account)
  if (wrong !== undefined) return problem("account", wrong)
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
  return Result.succeed({ cli, account, model })
}

/** @internal */
export const join = (parts: Parts): string =>
  parts.account === undefined ? `${parts.cli}/${parts.model}` : `${parts.cli}@${parts.account}/${parts.model}`
