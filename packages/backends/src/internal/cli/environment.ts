import type * as Account from "@fallback/core/Account"
import { expandHome } from "@fallback/core/ConfigFile"
import * as Secret from "@fallback/core/Secret"
import * as Option from "effect/Option"
import * as Result from "effect/Result"

/** What every CLI needs from the parent's environment to run at all. */
const basics = ["PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR"]

const pick = (names: ReadonlyArray<string>, from: NodeJS.ProcessEnv): Record<string, string> =>
  Object.fromEntries(names.flatMap((name) => {
    const value = from[name]
    return value === undefined ? [] : [[name, value]]
  }))

/**
 * An account variable whose referenced variable is not set.
 *
 * @internal
 */
export interface Unset {
  readonly account: string
  readonly variable: string
  readonly from: string
}

/**
 * The environment a turn's child gets, and nothing more: the basics, the CLI's own quiet
 * settings, and either the account's credentials (its config folder and its variables, each
 * `{ fromEnv }` read from the parent) or, with no account, the credential variables the CLI reads
 * by itself.
 *
 * @internal
 */
export const environment = (
  parent: NodeJS.ProcessEnv,
  account: Option.Option<Account.Account>,
  cli: {
    readonly passes: ReadonlyArray<string>
    readonly quiet: Readonly<Record<string, string>>
    readonly home: (configDir: string) => Readonly<Record<string, string>>
  },
  extra: Readonly<Record<string, string>>
): Result.Result<Record<string, string>, Unset> => {
  const base = { ...pick(basics, parent), NO_COLOR: "1", ...cli.quiet, ...extra }
  if (Option.isNone(account)) {
    const passed = pick(cli.passes, parent)
    for (const [name, value] of Object.entries(passed)) if (Secret.secretName(name)) Secret.hold(value)
    return Result.succeed({ ...base, ...passed })
  }
  const { configDir, env = {}, name } = account.value
  const variables: Record<string, string> = {}
  for (const [variable, value] of Object.entries(env)) {
    if (typeof value === "string") {
      variables[variable] = value
    } else {
      const found = parent[value.fromEnv]
      if (found === undefined) return Result.fail({ account: name, variable, from: value.fromEnv })
      Secret.hold(found)
      variables[variable] = found
    }
  }
  return Result.succeed({
    ...base,
    ...(configDir === undefined ? {} : cli.home(expandHome(configDir, parent.HOME ?? ""))),
    ...variables
  })
}
