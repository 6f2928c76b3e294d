/**
 * The config file: the steps and the accounts, as JSON a person can read and edit, at
 * `--config` / `FALLBACK_CONFIG`, else `$XDG_CONFIG_HOME/fallback/config.json`
 * (`~/.config/fallback/config.json`).
 *
 * It never holds a secret: an account's environment names the variable a key is read from
 * (`{ "fromEnv": "ANTHROPIC_KEY_WORK" }`). Writes are atomic and locked, so several processes
 * can edit one file without losing a step, and a file that does not read is never overwritten.
 *
 * @since 0.1.0
 */
import type * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import * as Failure from "./Failure.js"
import * as internal from "./internal/configFile.js"
import { nearest } from "./internal/nearest.js"
import { looksLikeSecret, secretName } from "./internal/secret.js"
import * as SharedFile from "./internal/sharedFile.js"
import type { Book } from "./internal/steps.js"
import * as Place from "./Place.js"
import * as Policy from "./Policy.js"

/**
 * The CLIs fallback drives out of the box.
 *
 * @since 0.1.0
 * @category constants
 */
export const builtinClis: ReadonlyArray<string> = ["claude", "codex", "gemini", "opencode", "antigravity"]

/**
 * The CLIs a config may name: the built-in ones unless a program says otherwise (a test double, an
 * HTTP provider of its own).
 *
 * @since 0.1.0
 * @category getters
 */
export class KnownClis extends Context.Reference<KnownClis>()("@fallback/core/ConfigFile/KnownClis", {
  defaultValue: (): ReadonlyArray<string> => builtinClis
}) {}

const StepsByPlace = <A, I>(entry: Schema.Schema<A, I>) =>
  Schema.Record({ key: Schema.String, value: entry }).pipe(
    Schema.filter((steps) => {
      const wrong = Object.keys(steps).find((key) => Either.isLeft(Place.parse(key)))
      return wrong === undefined ||
        { path: [wrong], message: Either.flip(Place.parse(wrong)).pipe(Either.getOrThrow).message }
    }, { jsonSchema: { propertyNames: { pattern: Place.pattern.source } } })
  ).annotations({ description: "what is written against each place, keyed by the place" })

const EnvName = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z_][A-Za-z0-9_]*$/, {
    message: () => "an environment variable's name: letters, digits and \"_\", not starting with a digit"
  })
)

/**
 * An environment variable of an account whose value is read from the user's own environment when
 * a turn runs: `{ "fromEnv": "ANTHROPIC_KEY_WORK" }`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const FromEnv = Schema.Struct({ fromEnv: EnvName }).annotations({
  identifier: "FromEnv",
  description: "take the value from this variable of your environment"
})

const secretAdvice =
  "looks like a secret; keep it in your environment and write { \"fromEnv\": \"NAME_OF_THAT_VARIABLE\" } here instead"

/**
 * A plain value for a setting that is not a secret, such as a base URL.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Setting = Schema.String.pipe(
  Schema.filter((value) => !looksLikeSecret(value) || secretAdvice)
).annotations({ identifier: "Setting", description: "a plain value that is not a secret, such as a base URL" })

const EnvValue = Schema.Union(FromEnv, Setting).annotations({
  message: (issue) => ({
    message: typeof issue.actual === "string"
      ? secretAdvice
      : "{ \"fromEnv\": \"NAME_OF_A_VARIABLE\" } (letters, digits and \"_\"), or a plain setting such as a base URL",
    override: true
  })
})

/**
 * Where a CLI sends its requests when not to its vendor: an Anthropic-compatible endpoint for
 * claude, an OpenAI-compatible one (Responses API for codex, chat completions for opencode), a
 * Gemini-compatible one for gemini. `baseUrl` as the CLI takes it, `key` the variable its key is
 * read from (none for a local server that wants none), `provider` the name codex and opencode
 * give it (`fallback` unless said). Set on a CLI (`clis.codex.endpoint`) or one account.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Endpoint = Schema.Struct({
  baseUrl: Schema.String.pipe(Schema.pattern(/^https?:\/\/\S+$/, { message: () => "an http:// or https:// URL" })),
  key: Schema.optionalWith(FromEnv, { exact: true }),
  provider: Schema.optionalWith(
    Schema.String.pipe(Schema.pattern(/^[a-z][a-z0-9_-]*$/, {
      message: () => "a provider's name: lowercase letters, digits, \"-\" and \"_\""
    })),
    { exact: true }
  )
}).annotations({ identifier: "Endpoint", description: "where the CLI sends its requests" })

/**
 * One account of a CLI: its name (the `@ACCOUNT` of a place) and how it authenticates.
 *
 * @since 0.1.0
 * @category schemas
 */
export class Account extends Schema.Class<Account>("@fallback/core/Account")({
  name: Place.Account,
  configDir: Schema.optionalWith(Schema.NonEmptyString.annotations({ description: "the CLI's own config folder" }), {
    exact: true
  }),
  env: Schema.optionalWith(
    Schema.Record({ key: EnvName, value: EnvValue }).pipe(
      Schema.filter((env) => {
        const named = Object.keys(env).find((name) => typeof env[name] === "string" && secretName(name))
        return named === undefined ||
          { path: [named], message: `the name ${named} says it holds a secret: ${secretAdvice}` }
      })
    ),
    { exact: true }
  ),
  endpoint: Schema.optionalWith(Endpoint, { exact: true })
}, { identifier: "Account" }) {}

const AccountChain = Schema.Array(Account).pipe(
  Schema.filter((accounts) => {
    const names = accounts.map((account) => account.name)
    const twice = names.find((name, i) => names.indexOf(name) !== i)
    return twice === undefined || `the account "${twice}" is listed twice`
  })
).annotations({ description: "the accounts of one CLI, in the order they are tried" })

const headerName = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/

/**
 * Headers sent with every request to a provider, by name: a plain value, or `{ "fromEnv": "NAME" }`
 * for one that is a credential. A header that carries a credential by its name (`Authorization`,
 * `x-api-key`, `…-token`) takes its value only from the environment.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Headers = Schema.Record({ key: Schema.String, value: EnvValue }).pipe(
  Schema.filter((headers) => {
    const badName = Object.keys(headers).find((name) => !headerName.test(name))
    if (badName !== undefined) {
      return { path: [badName], message: "an HTTP header's name: letters, digits and \"-\", no spaces or colons" }
    }
    const named = Object.keys(headers).find((name) => typeof headers[name] === "string" && internal.secretHeader(name))
    return named === undefined ||
      { path: [named], message: `the header ${named} carries a credential: ${secretAdvice}` }
  }, { jsonSchema: { propertyNames: { pattern: headerName.source } } })
).annotations({ identifier: "Headers", description: "headers sent with every request, by name" })

const Limit = Schema.Number.pipe(Schema.positive({ message: () => "seconds, more than 0" }))

/**
 * A provider's own limits, in seconds: `firstByte`, the longest its response may take to begin
 * (shorter than the run's first-byte limit to give up on it sooner); `idle`, the longest an answer's
 * stream may go quiet once it began (60 s unless said; `--idle` says it for every provider).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Timeouts = Schema.Struct({
  firstByte: Schema.optionalWith(Limit, { exact: true }),
  idle: Schema.optionalWith(Limit, { exact: true })
}).annotations({ identifier: "Timeouts", description: "the provider's own limits, in seconds" })

/**
 * An HTTP provider the config defines: the record's key is the CLI part of the places it serves
 * (`local` in `local/qwen3:8b`). `kind` is its wire format, `baseUrl` where it listens (for
 * Anthropic Messages the origin without `/v1`, for OpenAI-compatible up to and including `/v1`),
 * `key` the variable its key is read from (none for a local server that wants none), `models` what
 * it serves with their context windows, `headers` sent with every request and `timeouts` its own
 * limits.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Provider = Schema.Struct({
  kind: Schema.Literal("anthropic-messages", "openai-compatible").annotations({
    message: () => ({ message: "\"anthropic-messages\" or \"openai-compatible\"", override: true })
  }),
  baseUrl: Schema.String.pipe(
    Schema.pattern(/^https?:\/\/\S+$/, { message: () => "an http:// or https:// URL" }),
    Schema.filter((url) =>
      !looksLikeSecret(url) ||
      "the URL holds a secret; keep it in your environment and name it as the provider's \"key\": { \"fromEnv\": \"NAME_OF_THAT_VARIABLE\" }"
    )
  ),
  key: Schema.optionalWith(FromEnv, { exact: true }),
  models: Schema.optionalWith(
    Schema.Array(Schema.Struct({
      name: Place.Model,
      contextWindow: Schema.optionalWith(Schema.Int.pipe(Schema.positive()), { exact: true })
    })),
    { exact: true }
  ),
  maxTokens: Schema.optionalWith(Schema.Int.pipe(Schema.positive()), { exact: true }),
  headers: Schema.optionalWith(Headers, { exact: true }),
  timeouts: Schema.optionalWith(Timeouts, { exact: true })
}).annotations({ identifier: "Provider", description: "an HTTP provider, named by its key" })

/**
 * How a CLI is run: `bin`, the binary to run when it is not the one on `PATH`; `endpoint`, where every
 * account of it without one of its own sends its requests; `models`, models it runs that fallback's
 * catalogue of it does not list yet.
 *
 * @since 0.1.0
 * @category schemas
 */
export const CliSettings = Schema.Struct({
  bin: Schema.optionalWith(Schema.NonEmptyString.annotations({ description: "the path of the CLI's binary" }), {
    exact: true
  }),
  endpoint: Schema.optionalWith(Endpoint, { exact: true }),
  models: Schema.optionalWith(
    Schema.Array(Place.Model).annotations({ description: "models it runs beyond the ones fallback lists for it" }),
    { exact: true }
  )
}).annotations({ identifier: "CliSettings" })

/**
 * What is written against one place in the file.
 *
 * @since 0.1.0
 * @category schemas
 */
export const StepEntry = Schema.Struct({
  to: Schema.optionalWith(Place.FromString, { exact: true }),
  retrying: Schema.optionalWith(Policy.Retrying, { exact: true })
}).annotations({ identifier: "Step" })

const passwordInUrl = /^rediss?:\/\/[^@/]*:[^@/]+@/
const redisUrlAdvice = "a redis:// or rediss:// URL, or { \"fromEnv\": \"NAME_OF_A_VARIABLE\" } that holds one"
const passwordAdvice =
  "a Redis URL with no password in it: give the password as \"password\": { \"fromEnv\": \"NAME_OF_A_VARIABLE\" }"

// Any message about the URL is one of these: never the URL itself, which may hold a password.
const RedisUrl = Schema.Union(
  FromEnv,
  Schema.String.pipe(Schema.pattern(/^rediss?:\/\/\S+$/), Schema.filter((url) => !passwordInUrl.test(url)))
).annotations({
  message: (issue) => ({
    message: typeof issue.actual === "string" && passwordInUrl.test(issue.actual) ? passwordAdvice : redisUrlAdvice,
    override: true
  })
})

/**
 * Where the health of places (breakers, cooldowns) is kept: `file`, beside this file (the
 * default), shared by the processes of one machine; or `redis`, shared by every process on every
 * machine using the same Redis and `prefix`. The URL, and any password, may come from the
 * environment; a password is never written here.
 *
 * @since 0.1.0
 * @category schemas
 */
export const HealthStore = Schema.Union(
  Schema.Struct({ store: Schema.Literal("file") }),
  Schema.Struct({
    store: Schema.Literal("redis"),
    url: RedisUrl,
    password: Schema.optionalWith(FromEnv, { exact: true }),
    prefix: Schema.optionalWith(Schema.NonEmptyString, { exact: true })
  })
).annotations({ identifier: "HealthStore", description: "where the health of places is kept" })

const Seconds = Schema.Number.pipe(Schema.nonNegative({ message: () => "seconds, 0 or more" }))
const Count = Schema.Int.pipe(Schema.positive({ message: () => "a whole number, 1 or more" }))

/**
 * What one failure kind gets, over the preset's answer for it: `waits` before each go again here
 * (seconds), `atLeast` the shortest wait, whether the step's own tries apply (`step`), whether the
 * session is reopened (`reopen`), whether other accounts and places are walked, the `cooldown`
 * (seconds) the place gets, and `once` for a kind taken only once.
 *
 * @since 0.1.0
 * @category schemas
 */
export const AnswerSettings = Schema.Struct({
  waits: Schema.optionalWith(Schema.Array(Seconds), { exact: true }),
  atLeast: Schema.optionalWith(Seconds, { exact: true }),
  step: Schema.optionalWith(Schema.Boolean, { exact: true }),
  reopen: Schema.optionalWith(Schema.Boolean, { exact: true }),
  accounts: Schema.optionalWith(Schema.Boolean, { exact: true }),
  places: Schema.optionalWith(Schema.Boolean, { exact: true }),
  cooldown: Schema.optionalWith(Seconds, { exact: true }),
  once: Schema.optionalWith(Schema.Boolean, { exact: true })
}).annotations({ identifier: "AnswerSettings" })

/**
 * How `fallback run` recovers when its flags do not say: the preset, the first-byte, idle and
 * deadline limits (seconds; a first byte of 0 is no limit), the most goes in all, the breaker's
 * numbers (failures in a row, seconds parked) and the answer to each failure kind.
 *
 * @since 0.1.0
 * @category schemas
 */
export const RunSettings = Schema.Struct({
  preset: Schema.optionalWith(Schema.Literal("primary", "escalating", "breaker"), { exact: true }),
  firstByte: Schema.optionalWith(Seconds, { exact: true }),
  idle: Schema.optionalWith(Seconds, { exact: true }),
  deadline: Schema.optionalWith(Seconds.pipe(Schema.positive({ message: () => "seconds, more than 0" })), {
    exact: true
  }),
  attempts: Schema.optionalWith(Count, { exact: true }),
  breaker: Schema.optionalWith(
    Schema.Struct({
      failures: Schema.optionalWith(Count, { exact: true }),
      park: Schema.optionalWith(Seconds, { exact: true })
    }),
    { exact: true }
  ),
  answers: Schema.optionalWith(
    Schema.Struct(
      Object.fromEntries(Failure.kinds.map((kind) => [kind, Schema.optionalWith(AnswerSettings, { exact: true })])) as {
        readonly [K in Failure.Kind]: Schema.optionalWith<typeof AnswerSettings, { exact: true }>
      }
    ),
    { exact: true }
  )
}).annotations({ identifier: "RunSettings" })

/** The keys an object at `path` in the file may have, for "did you mean" on one it may not. */
const keysAt = (path: ReadonlyArray<PropertyKey>): ReadonlyArray<string> => {
  const [section, , third, fourth] = path
  const fieldsOf = (schema: { readonly fields: object }) => Object.keys(schema.fields)
  if (path.length === 0) return fieldsOf(Document)
  switch (section) {
    case "steps":
      return path.length === 2 ? fieldsOf(StepEntry) : third === "retrying" ? ["tries", "policy", "timeout"] : []
    case "accounts":
      return path.length === 3 ? fieldsOf(Account) : fourth === "endpoint" ? fieldsOf(Endpoint) : ["fromEnv"]
    case "providers":
      return path.length === 2
        ? fieldsOf(Provider)
        : third === "models"
        ? ["name", "contextWindow"]
        : third === "timeouts"
        ? fieldsOf(Timeouts)
        : ["fromEnv"]
    case "run":
      return path.length === 1
        ? fieldsOf(RunSettings)
        : third === undefined && path[1] === "breaker"
        ? ["failures", "park"]
        : path[1] === "answers"
        ? path.length === 2 ? [...Failure.kinds] : fieldsOf(AnswerSettings)
        : []
    case "clis":
      return path.length === 2
        ? fieldsOf(CliSettings)
        : third === "endpoint" && path.length === 3
        ? fieldsOf(Endpoint)
        : ["fromEnv"]
    default:
      return []
  }
}

/**
 * The limits on a turn a file sets for every agent the command makes: `send`, the ceiling on one
 * attempt in seconds (the escalating preset's 600 s when not said).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Limits = Schema.Struct({
  send: Schema.optionalWith(Policy.Seconds, { exact: true })
}).annotations({ identifier: "Limits" })

/**
 * The whole file.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Document = Schema.Struct({
  $schema: Schema.optionalWith(Schema.String, { exact: true }),
  steps: Schema.optionalWith(StepsByPlace(StepEntry), { default: () => ({}), exact: true }),
  accounts: Schema.optionalWith(Schema.Record({ key: Place.Cli, value: AccountChain }), {
    default: () => ({}),
    exact: true
  }),
  providers: Schema.optionalWith(Schema.Record({ key: Place.Cli, value: Provider }), {
    default: () => ({}),
    exact: true
  }),
  clis: Schema.optionalWith(Schema.Record({ key: Place.Cli, value: CliSettings }), {
    default: () => ({}),
    exact: true
  }),
  limits: Schema.optionalWith(Limits, { exact: true }),
  health: Schema.optionalWith(HealthStore, { exact: true }),
  run: Schema.optionalWith(RunSettings, { exact: true })
}).annotations({ identifier: "FallbackConfig", title: "fallback config" })

/**
 * @since 0.1.0
 * @category models
 */
export type Document = typeof Document.Type

/**
 * A file with nothing in it yet.
 *
 * @since 0.1.0
 * @category constants
 */
export const empty: Document = Document.make({ steps: {}, accounts: {}, providers: {}, clis: {} })

/**
 * The config file could not be read (no permission, not a file).
 *
 * @since 0.1.0
 * @category errors
 */
export class ConfigUnreadable extends Schema.TaggedError<ConfigUnreadable>("@fallback/core/ConfigUnreadable")(
  "ConfigUnreadable",
  { file: Schema.String, reason: Schema.String }
) {
  override get message(): string {
    return `cannot read ${this.file}: ${this.reason}`
  }
}

/**
 * The config file is not JSON. It is left as it is.
 *
 * @since 0.1.0
 * @category errors
 */
export class ConfigNotJson extends Schema.TaggedError<ConfigNotJson>("@fallback/core/ConfigNotJson")(
  "ConfigNotJson",
  { file: Schema.String, reason: Schema.String }
) {
  override get message(): string {
    return `${this.file} is not JSON (${this.reason}); nothing was written to it: mend it, or move it away to start afresh`
  }
}

/**
 * One value of the config file that is not what was expected, and where it is.
 *
 * @since 0.1.0
 * @category models
 */
export const Issue = Schema.Struct({ at: Schema.String, expected: Schema.String })

/**
 * The config file is JSON but holds something it should not: each bad value with its JSON path.
 *
 * @since 0.1.0
 * @category errors
 */
export class ConfigInvalid extends Schema.TaggedError<ConfigInvalid>("@fallback/core/ConfigInvalid")(
  "ConfigInvalid",
  { file: Schema.String, issues: Schema.NonEmptyArray(Issue) }
) {
  override get message(): string {
    const shown = this.issues.slice(0, 5).map(({ at, expected }) => `at ${at}: ${expected}`).join("; ")
    return `${this.file} is not a fallback config: ${shown}` +
      (this.issues.length > 5 ? `; and ${this.issues.length - 5} more` : "")
  }
}

/**
 * Another process held the config file's lock for too long.
 *
 * @since 0.1.0
 * @category errors
 */
export class ConfigLocked extends Schema.TaggedError<ConfigLocked>("@fallback/core/ConfigLocked")("ConfigLocked", {
  file: Schema.String,
  holder: Schema.String
}) {
  override get message(): string {
    return `${this.file} is being written by ${this.holder} and stayed locked; try again, or remove ${this.file}.lock if that process is gone`
  }
}

/**
 * The config file could not be written. The file is as it was.
 *
 * @since 0.1.0
 * @category errors
 */
export class ConfigUnwritable extends Schema.TaggedError<ConfigUnwritable>("@fallback/core/ConfigUnwritable")(
  "ConfigUnwritable",
  { file: Schema.String, reason: Schema.String }
) {
  override get message(): string {
    return `cannot write ${this.file}: ${this.reason}; the file is as it was`
  }
}

const inFile = (file: string | undefined) => file === undefined ? "" : `${file}: `

/**
 * A place that falls back to itself.
 *
 * @since 0.1.0
 * @category errors
 */
export class SelfStep extends Schema.TaggedError<SelfStep>("@fallback/core/SelfStep")("SelfStep", {
  place: Place.Place,
  file: Schema.optional(Schema.String)
}) {
  override get message(): string {
    return `${inFile(this.file)}the step at ${this.place} points at itself; a place cannot fall back to itself`
  }
}

/**
 * A place whose CLI fallback does not know.
 *
 * @since 0.1.0
 * @category errors
 */
export class UnknownCli extends Schema.TaggedError<UnknownCli>("@fallback/core/UnknownCli")("UnknownCli", {
  place: Schema.String,
  cli: Schema.String,
  known: Schema.Array(Schema.String),
  file: Schema.optional(Schema.String)
}) {
  override get message(): string {
    const close = nearest(this.cli, this.known)
    return `${inFile(this.file)}${this.place} names the CLI "${this.cli}", which is not one fallback knows` +
      (close.length > 0
        ? ` (did you mean ${close.join(" or ")}?); known: ${this.known.join(", ")}`
        : `; known: ${
          this.known.join(", ")
        }; for a model server, name it under "providers" first, e.g. "${this.cli}": ` +
          `{ "kind": "openai-compatible", "baseUrl": "http://127.0.0.1:11434/v1" }`)
  }
}

/**
 * A provider named like a CLI fallback drives: places could not tell the two apart.
 *
 * @since 0.1.0
 * @category errors
 */
export class ProviderShadowsCli extends Schema.TaggedError<ProviderShadowsCli>("@fallback/core/ProviderShadowsCli")(
  "ProviderShadowsCli",
  { name: Schema.String, file: Schema.optional(Schema.String) }
) {
  override get message(): string {
    return `${
      inFile(this.file)
    }the provider "${this.name}" has the name of a CLI fallback drives; give it another name (its places are written ${this.name}-api/MODEL, say)`
  }
}

/**
 * A place whose account is not set up for its CLI.
 *
 * @since 0.1.0
 * @category errors
 */
export class UnknownAccount extends Schema.TaggedError<UnknownAccount>("@fallback/core/UnknownAccount")(
  "UnknownAccount",
  {
    place: Place.Place,
    accounts: Schema.Array(Schema.String),
    file: Schema.optional(Schema.String)
  }
) {
  override get message(): string {
    const close = nearest(this.place.account ?? "", this.accounts)
    return `${inFile(this.file)}${this.place} names the account "${this.place.account}", which is not set up for ` +
      `${this.place.cli} (${this.accounts.length === 0 ? "it has none" : `it has ${this.accounts.join(", ")}`}${
        close.length === 0 ? "" : `; did you mean ${close.join(" or ")}?`
      }); add it with: fallback accounts add ${this.place.cli} ${this.place.account}`
  }
}

/**
 * Everything reading or writing the config can fail with.
 *
 * @since 0.1.0
 * @category errors
 */
export type ConfigFileError =
  | ConfigUnreadable
  | ConfigNotJson
  | ConfigInvalid
  | ConfigLocked
  | ConfigUnwritable
  | SelfStep
  | UnknownCli
  | UnknownAccount
  | ProviderShadowsCli

/**
 * Whether a document knows a place: its CLI is one of the `known` CLIs or a provider the document
 * defines, and its account (if it names one) is set up for that CLI. The one rule `fallback point`
 * writes by and `fallback run` starts by.
 *
 * @since 0.1.0
 * @category guards
 */
export const checkPlace = (
  document: Document,
  place: Place.Place,
  options: { readonly known: ReadonlyArray<string>; readonly file?: string | undefined }
): Either.Either<Place.Place, UnknownCli | UnknownAccount> => {
  const where = options.file === undefined ? {} : { file: options.file }
  const known = [...options.known, ...Object.keys(document.providers).sort()]
  if (!known.includes(place.cli)) {
    return Either.left(new UnknownCli({ place: String(place), cli: place.cli, known, ...where }))
  }
  const accounts = (document.accounts[place.cli] ?? []).map((account) => account.name)
  return place.account !== undefined && !accounts.includes(place.account)
    ? Either.left(new UnknownAccount({ place, accounts, ...where }))
    : Either.right(place)
}

/**
 * The places a document names that it should not: a self-step always; with the CLIs that are
 * `known`, also a place whose CLI is not one of them or whose account is not set up. The first
 * one found, places in order.
 *
 * @since 0.1.0
 * @category guards
 */
export const check = (
  document: Document,
  options: { readonly known?: ReadonlyArray<string> | undefined; readonly file?: string | undefined } = {}
): Either.Either<Document, SelfStep | UnknownCli | UnknownAccount | ProviderShadowsCli> => {
  const where = options.file === undefined ? {} : { file: options.file }
  const providers = Object.keys(document.providers).sort()
  const shadowing = providers.find((name) => options.known?.includes(name))
  if (shadowing !== undefined) {
    return Either.left(new ProviderShadowsCli({ name: shadowing, ...where }))
  }
  const known = options.known === undefined ? undefined : [...options.known, ...providers]
  const placeProblem = (place: Place.Place): Option.Option<UnknownCli | UnknownAccount> =>
    options.known === undefined
      ? Option.none()
      : Either.getLeft(checkPlace(document, place, { known: options.known, file: options.file }))
  for (const cli of [...Object.keys(document.accounts), ...Object.keys(document.clis)].sort()) {
    if (known !== undefined && !known.includes(cli)) {
      const section = cli in document.accounts ? "accounts" : "clis"
      return Either.left(new UnknownCli({ place: `${section}.${cli}`, cli, known, ...where }))
    }
  }
  for (const { place, to } of bookOf(document).values()) {
    if (to !== undefined && String(to) === String(place)) return Either.left(new SelfStep({ place, ...where }))
    const problem = Option.orElse(placeProblem(place), () => to === undefined ? Option.none() : placeProblem(to))
    if (Option.isSome(problem)) return Either.left(problem.value)
  }
  return Either.right(document)
}

/**
 * The steps of a document, keyed by the written place and in the order of the written places.
 *
 * @since 0.1.0
 * @category combinators
 */
export const bookOf = (document: Document): Book =>
  new Map(
    Object.keys(document.steps).sort().map((
      key
    ) => [key, { place: Either.getOrThrow(Place.parse(key)), ...document.steps[key] }])
  )

/**
 * A document with its steps replaced by a book's, written in the order of the places.
 *
 * @since 0.1.0
 * @category combinators
 */
export const withBook = (document: Document, book: Book): Document => ({
  ...document,
  steps: Object.fromEntries(
    [...book.keys()].sort().map((key) => {
      const { retrying, to } = book.get(key)!
      return [key, { ...(to === undefined ? {} : { to }), ...(retrying === undefined ? {} : { retrying }) }]
    })
  )
})

/**
 * Reads a file's text as a document: JSON first, then the schema (unknown keys refused), then the
 * places it names.
 *
 * @since 0.1.0
 * @category constructors
 */
export const decode = (
  file: string,
  text: string,
  known: ReadonlyArray<string>
): Either.Either<
  Document,
  ConfigNotJson | ConfigInvalid | SelfStep | UnknownCli | UnknownAccount | ProviderShadowsCli
> =>
  Either.try({
    try: () => JSON.parse(text) as unknown,
    catch: (e) => new ConfigNotJson({ file, reason: internal.jsonReason(e, text) })
  }).pipe(
    Either.filterOrLeft(
      (json) => typeof json === "object" && json !== null && !Array.isArray(json),
      () =>
        new ConfigInvalid({
          file,
          issues: [{ at: "the top", expected: "a JSON object with \"steps\" and \"accounts\"" }]
        })
    ),
    Either.flatMap((json) => {
      const hazard = internal.hazard(text)
      return hazard === undefined ? Either.right(json) : Either.left(new ConfigInvalid({ file, issues: [hazard] }))
    }),
    Either.flatMap((json) =>
      Either.mapLeft(
        Schema.decodeUnknownEither(Document, { onExcessProperty: "error", errors: "all" })(json),
        (error) => new ConfigInvalid({ file, issues: internal.issuesOf(error, keysAt) })
      )
    ),
    Either.flatMap((document) => check(document, { known, file }))
  )

/**
 * A document as the text written to the file (the providers and clis sections only when they
 * hold something).
 *
 * @since 0.1.0
 * @category utils
 */
export const encode = (document: Document): string => {
  const { clis, providers, ...rest } = Schema.encodeSync(Document)(document)
  const written = {
    ...rest,
    ...(providers === undefined || Object.keys(providers).length === 0 ? {} : { providers }),
    ...(clis === undefined || Object.keys(clis).length === 0 ? {} : { clis })
  }
  return `${JSON.stringify(written, null, 2)}\n`
}

/**
 * Where the config file is: `FALLBACK_CONFIG`, else `$XDG_CONFIG_HOME/fallback/config.json`,
 * else `$HOME/.config/fallback/config.json`.
 *
 * @since 0.1.0
 * @category getters
 */
export const location: Effect.Effect<string, ConfigError.ConfigError, Path.Path> = Effect.gen(function*() {
  const path = yield* Path.Path
  const explicit = yield* Config.option(Config.nonEmptyString("FALLBACK_CONFIG"))
  if (Option.isSome(explicit)) return path.resolve(explicit.value)
  const xdg = yield* Config.option(Config.nonEmptyString("XDG_CONFIG_HOME"))
  const base = Option.isSome(xdg) ? xdg.value : path.join(yield* Config.nonEmptyString("HOME"), ".config")
  return path.resolve(base, "fallback", "config.json")
})

const patience = Duration.seconds(10)

/**
 * A document kept in a file. A change is written only when its text reads back as the same
 * document: nothing is written that the next command would refuse.
 */
const fileStore = (file: string) =>
  Effect.gen(function*() {
    const shared = yield* SharedFile.make(file, patience)
    const unwritable = (reason: string) => new ConfigUnwritable({ file, reason })

    const read = Effect.gen(function*() {
      const known = yield* KnownClis
      const content = yield* Effect.mapError(shared.text, (e) => new ConfigUnreadable({ file, reason: e.message }))
      return Option.isNone(content) || content.value.trim() === ""
        ? empty
        : yield* decode(file, content.value, known)
    })

    const readsBack = (document: Document, known: ReadonlyArray<string>) =>
      Either.try({ try: () => encode(document), catch: (e) => e }).pipe(
        Either.filterOrLeft((text) => Either.isRight(decode(file, text, known)), () => undefined),
        Either.mapLeft((e) =>
          unwritable(
            `the change would not read back (${
              e instanceof Error ? internal.firstLine(e.message) : "it writes what the file refuses"
            })`
          )
        )
      )

    return Store.of({
      file: Option.some(file),
      read,
      modify: (change) =>
        Effect.gen(function*() {
          const known = yield* KnownClis
          const next = yield* Either.flatMap(change(yield* read), (document) => check(document, { known, file }))
          const text = yield* readsBack(next, known)
          yield* Effect.mapError(shared.replace(text), (e) => unwritable(e.message))
        }).pipe(
          shared.edit((problem) =>
            problem._tag === "Held"
              ? new ConfigLocked({ file, holder: problem.holder })
              : unwritable(problem.reason)
          )
        )
    })
  })

/**
 * Where the document lives: read it, or change it in one read-modify-write that no other writer
 * interleaves with.
 *
 * @since 0.1.0
 * @category services
 */
export class Store extends Context.Tag("@fallback/core/ConfigFile/Store")<Store, {
  /** The file the store writes, if it is one. */
  readonly file: Option.Option<string>
  /** The document as it is now. */
  readonly read: Effect.Effect<Document, ConfigFileError>
  /** Applies a change to the document as it is now, and keeps the result if it checks. */
  readonly modify: <E>(
    change: (document: Document) => Either.Either<Document, E>
  ) => Effect.Effect<void, E | ConfigFileError>
}>() {
  /**
   * A document held in memory, starting from `initial` (empty by default). A program names its own
   * CLIs and accounts, so only self-steps are refused here; files are checked in full.
   *
   * @since 0.1.0
   */
  static readonly layerMemory = (initial: Document = empty): Layer.Layer<Store> =>
    Layer.effect(
      Store,
      Effect.gen(function*() {
        const ref = yield* Ref.make(initial)
        const lock = yield* Effect.makeSemaphore(1)
        return Store.of({
          file: Option.none(),
          read: Ref.get(ref),
          modify: (change) =>
            lock.withPermits(1)(Effect.gen(function*() {
              const next = yield* Either.flatMap(change(yield* Ref.get(ref)), (document) => check(document))
              yield* Ref.set(ref, next)
            }))
        })
      })
    )

  /**
   * The document in a file: created 0600 on first write, replaced atomically, edited under a lock.
   *
   * @since 0.1.0
   */
  static readonly layerFile = (file: string): Layer.Layer<Store, never, FileSystem.FileSystem | Path.Path> =>
    Layer.effect(Store, fileStore(file))

  /**
   * The document in the file {@link location} names.
   *
   * @since 0.1.0
   */
  static readonly layerDefault: Layer.Layer<Store, ConfigError.ConfigError, FileSystem.FileSystem | Path.Path> = Layer
    .unwrapEffect(Effect.map(location, Store.layerFile))
}

/**
 * An account's `configDir` as a path: a leading `~` (alone or before `/`) is `home`, the same for
 * the CLI that runs in it and for every check of it.
 *
 * @since 0.1.0
 * @category getters
 */
export const expandHome = (dir: string, home: string): string => dir.replace(/^~(?=$|\/)/, () => home)

/**
 * The JSON Schema of the config file, generated from {@link Document}.
 *
 * @since 0.1.0
 * @category schemas
 */
export const jsonSchema = (): unknown => internal.jsonSchemaOf(Document)
