/**
 * An account of a CLI: its name (the `@ACCOUNT` of a place), the CLI's own config folder for it,
 * the environment it runs with, and where it sends its requests. What a backend is given to run a
 * turn as an account, whether the account came from a config file or from a program.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import * as values from "./internal/config/values.js"
import * as Place from "./Place.js"

/**
 * An environment variable of an account whose value is read from the user's own environment when
 * a turn runs: `{ "fromEnv": "ANTHROPIC_KEY_WORK" }`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const FromEnv: typeof values.FromEnv = values.FromEnv

/**
 * A plain value for a setting that is not a secret, such as a base URL.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Setting: typeof values.Setting = values.Setting

/**
 * Where a CLI sends its requests when not to its vendor: an Anthropic-compatible endpoint for
 * claude, an OpenAI-compatible one (Responses API for codex, chat completions for opencode), a
 * Gemini-compatible one for gemini. `baseUrl` as the CLI takes it, `key` the variable its key is
 * read from (none for a local server that wants none), `provider` the name codex and opencode
 * give it (`fallback` unless said). Set on a CLI (`clis.codex.endpoint`) or one account; how each
 * CLI is pointed at it is the backends' `Endpoint` module.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Endpoint = Schema.Struct({
  baseUrl: values.Url,
  key: Schema.optionalKey(values.FromEnv),
  provider: Schema.optionalKey(
    Schema.String.check(Schema.isPattern(/^[a-z][a-z0-9_-]*$/u, {
      message: "a provider's name: lowercase letters, digits, \"-\" and \"_\""
    }))
  )
}).annotate({ identifier: "Endpoint", description: "where the CLI sends its requests" })

/**
 * @since 0.1.0
 * @category models
 */
export type Endpoint = typeof Endpoint.Type

const Env = Schema.Record(Schema.String, values.EnvValue).check(values.keysAre(values.EnvName, values.envNamePattern))
  .check(Schema.makeFilter((env) => {
    const named = Object.keys(env).find((name) => typeof env[name] === "string" && values.secretName(name))
    return named === undefined ||
      { path: [named], issue: `the name ${named} says it holds a secret: ${values.secretAdvice}` }
  }))

/**
 * One account of a CLI: its name (the `@ACCOUNT` of a place) and how it authenticates.
 *
 * @since 0.1.0
 * @category schemas
 */
export class Account extends Schema.Class<Account>("@fallback/core/Account")({
  name: Place.Account,
  configDir: Schema.optionalKey(Schema.NonEmptyString.annotate({ description: "the CLI's own config folder" })),
  env: Schema.optionalKey(Env),
  endpoint: Schema.optionalKey(Endpoint)
}, { identifier: "Account" }) {}
