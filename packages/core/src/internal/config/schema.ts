import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as Account from "../../Account.js"
import * as Failure from "../../Failure.js"
import * as Place from "../../Place.js"
import * as Policy from "../../Policy.js"
import * as Provider from "../../Provider.js"
import { cliPattern } from "../place.js"
import * as values from "./values.js"

/** @internal */
export const builtinClis: ReadonlyArray<string> = ["claude", "codex", "gemini", "opencode", "antigravity"]

const StepsByPlace = <S extends Schema.Top>(entry: S) =>
  Schema.Record(Schema.String, entry).check(
    Schema.makeFilter((steps: object) => {
      for (const key of Object.keys(steps)) {
        const parsed = Place.parse(key)
        if (Result.isFailure(parsed)) return { path: [key], issue: parsed.failure.message }
      }
      return undefined
    }, { toJsonSchema: () => ({ propertyNames: { pattern: Place.pattern.source } }) })
  ).annotate({ description: "what is written against each place, keyed by the place" })

/** @internal */
export const CliSettings = Schema.Struct({
  bin: Schema.optionalKey(Schema.NonEmptyString.annotate({ description: "the path of the CLI's binary" })),
  endpoint: Schema.optionalKey(Account.Endpoint),
  models: Schema.optionalKey(
    Schema.Array(Place.Model).annotate({ description: "models it runs beyond the ones fallback lists for it" })
  )
}).annotate({ identifier: "CliSettings" })

/** @internal */
export const StepEntry = Schema.Struct({
  to: Schema.optionalKey(Place.FromString),
  retrying: Schema.optionalKey(Policy.Retrying)
}).annotate({ identifier: "Step" })

const passwordInUrl = /^rediss?:\/\/[^@/]*:[^@/]+@/
const redisUrl = /^rediss?:\/\/\S+$/
const redisUrlAdvice = "a redis:// or rediss:// URL, or { \"fromEnv\": \"NAME_OF_A_VARIABLE\" } that holds one"
const passwordAdvice =
  "a Redis URL with no password in it: give the password as \"password\": { \"fromEnv\": \"NAME_OF_A_VARIABLE\" }"

// Any message about the URL is one of these: never the URL itself, which may hold a password.
const RedisUrl = Schema.Union([
  Schema.Struct({ fromEnv: Schema.String }).check(
    Schema.makeFilter((value) => values.isEnvName(value.fromEnv) || redisUrlAdvice)
  ),
  Schema.String.check(
    Schema.makeFilter((url) => passwordInUrl.test(url) ? passwordAdvice : redisUrl.test(url) || redisUrlAdvice, {
      toJsonSchema: () => ({ pattern: redisUrl.source })
    })
  )
]).annotate({ message: redisUrlAdvice })

/** @internal */
export const HealthStore = Schema.Union([
  Schema.Struct({ store: Schema.Literal("file") }),
  Schema.Struct({
    store: Schema.Literal("redis"),
    url: RedisUrl,
    password: Schema.optionalKey(values.FromEnv),
    prefix: Schema.optionalKey(Schema.NonEmptyString)
  })
]).annotate({ identifier: "HealthStore", description: "where the health of places is kept" })

const Seconds = Schema.Number.check(Schema.isGreaterThanOrEqualTo(0, { message: "seconds, 0 or more" }))
const Count = Schema.Int.check(Schema.isGreaterThanOrEqualTo(1, { message: "a whole number, 1 or more" }))

/** @internal */
export const AnswerSettings = Schema.Struct({
  waits: Schema.optionalKey(Schema.Array(Seconds)),
  atLeast: Schema.optionalKey(Seconds),
  step: Schema.optionalKey(Schema.Boolean),
  reopen: Schema.optionalKey(Schema.Boolean),
  accounts: Schema.optionalKey(Schema.Boolean),
  places: Schema.optionalKey(Schema.Boolean),
  cooldown: Schema.optionalKey(Seconds),
  once: Schema.optionalKey(Schema.Boolean)
}).annotate({ identifier: "AnswerSettings" })

const answersFields = Object.fromEntries(
  Failure.kinds.map((kind) => [kind, Schema.optionalKey(AnswerSettings)])
) as { readonly [K in Failure.Kind]: Schema.optionalKey<typeof AnswerSettings> }

/** @internal */
export const KindLimits = Schema.Struct({
  firstByte: Schema.optionalKey(Seconds),
  stall: Schema.optionalKey(Seconds)
}).annotate({
  identifier: "KindLimits",
  description: "seconds to the first content, and of quiet once it began; 0 for none"
})

/** @internal */
export const RunSettings = Schema.Struct({
  preset: Schema.optionalKey(Schema.Literals(["primary", "escalating", "breaker", "api"])),
  firstByte: Schema.optionalKey(Seconds),
  idle: Schema.optionalKey(Seconds),
  deadline: Schema.optionalKey(values.positiveSeconds),
  attempts: Schema.optionalKey(Count),
  limits: Schema.optionalKey(Schema.Struct({
    http: Schema.optionalKey(KindLimits),
    cli: Schema.optionalKey(KindLimits)
  })),
  breaker: Schema.optionalKey(Schema.Struct({
    failures: Schema.optionalKey(Count),
    park: Schema.optionalKey(Seconds)
  })),
  answers: Schema.optionalKey(Schema.Struct(answersFields))
}).annotate({ identifier: "RunSettings" })

const aliasAdvice =
  "write the place it is sent to, PROVIDER/MODEL or CLI[@ACCOUNT]/MODEL, such as \"anthropic/claude-sonnet-4-5\""

/**
 * A model name clients send (`claude-sonnet-4-5`), mapped to the place it is sent to, kept as
 * written: a value that is not a place is refused with what it should be.
 *
 * @internal
 */
export const Aliases = Schema.Record(
  Schema.String,
  Schema.String.check(Schema.makeFilter((target: string) => {
    const parsed = Place.parse(target)
    return Result.isSuccess(parsed) || `${parsed.failure.message}; ${aliasAdvice}`
  }, { toJsonSchema: () => ({ pattern: Place.pattern.source }) }))
).annotate({
  identifier: "Aliases",
  description: "model names clients send, each mapped to the place it is sent to (fallback serve)"
})

/** @internal */
export const Limits = Schema.Struct({
  send: Schema.optionalKey(Policy.Seconds)
}).annotate({ identifier: "Limits" })

const byCli = <S extends Schema.Top>(value: S) => {
  const record = Schema.Record(Schema.String, value).check(values.keysAre(Place.Cli, cliPattern))
  return record.pipe(Schema.withDecodingDefaultTypeKey(Effect.succeed({} as typeof record.Type)))
}

/** @internal */
export const Document = Schema.Struct({
  $schema: Schema.optionalKey(Schema.String),
  steps: StepsByPlace(StepEntry).pipe(Schema.withDecodingDefaultTypeKey(Effect.succeed({}))),
  accounts: byCli(
    Schema.Array(Account.Account).annotate({ description: "the accounts of one CLI, in the order they are tried" })
      .check(Schema.makeFilter((accounts) => {
        const names = accounts.map((account) => account.name)
        const twice = names.find((name, i) => names.indexOf(name) !== i)
        return twice === undefined || `the account "${twice}" is listed twice`
      }))
  ),
  providers: byCli(Provider.Provider),
  clis: byCli(CliSettings),
  aliases: Schema.optionalKey(Aliases),
  limits: Schema.optionalKey(Limits),
  health: Schema.optionalKey(HealthStore),
  run: Schema.optionalKey(RunSettings)
}).annotate({ identifier: "FallbackConfig", title: "fallback config" })

/** @internal */
export type Document = typeof Document.Type

/** @internal */
export const empty: Document = { steps: {}, accounts: {}, providers: {}, clis: {} }

const fieldsOf = (schema: { readonly fields: object }) => Object.keys(schema.fields)

/**
 * The keys an object at `path` in the file may have, for "did you mean" on one it may not.
 *
 * @internal
 */
export const keysAt = (path: ReadonlyArray<PropertyKey>): ReadonlyArray<string> => {
  const [section, , third, fourth] = path
  if (path.length === 0) return fieldsOf(Document)
  switch (section) {
    case "steps":
      return path.length === 2 ? fieldsOf(StepEntry) : third === "retrying" ? ["tries", "policy", "timeout"] : []
    case "accounts":
      return path.length === 3
        ? fieldsOf(Account.Account)
        : fourth === "endpoint"
        ? fieldsOf(Account.Endpoint)
        : ["fromEnv"]
    case "providers":
      return path.length === 2
        ? fieldsOf(Provider.Provider)
        : third === "models"
        ? ["name", "contextWindow"]
        : third === "timeouts"
        ? fieldsOf(Provider.Timeouts)
        : ["fromEnv"]
    case "run":
      return path.length === 1
        ? fieldsOf(RunSettings)
        : third === undefined && path[1] === "breaker"
        ? ["failures", "park"]
        : path[1] === "limits"
        ? path.length === 2 ? ["http", "cli"] : fieldsOf(KindLimits)
        : path[1] === "answers"
        ? path.length === 2 ? [...Failure.kinds] : fieldsOf(AnswerSettings)
        : []
    case "clis":
      return path.length === 2
        ? fieldsOf(CliSettings)
        : third === "endpoint" && path.length === 3
        ? fieldsOf(Account.Endpoint)
        : ["fromEnv"]
    default:
      return []
  }
}
