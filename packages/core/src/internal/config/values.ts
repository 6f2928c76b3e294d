import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { looksLikeSecret, secretName } from "../secret.js"

export { secretName }

// The `u` flag lets the JSON Schema carry the pattern.
const envName = /^[A-Za-z_][A-Za-z0-9_]*$/u

/**
 * A record's keys judged by a schema of their own, each refusal said at its key. (A record keyed by a
 * refined schema would pass over a key that does not fit, not refuse it.)
 *
 * @internal
 */
export const keysAre = (key: Schema.Codec<string, string>, pattern?: RegExp) => {
  const decode = Schema.decodeUnknownResult(key)
  return Schema.makeFilter(
    (record: object) =>
      Object.keys(record).flatMap((name) => {
        const result = decode(name)
        return Result.isFailure(result) ? [{ path: [name], issue: result.failure.issue }] : []
      }),
    pattern === undefined ? undefined : { toJsonSchema: () => ({ propertyNames: { pattern: pattern.source } }) }
  )
}

const envNameAdvice = "an environment variable's name: letters, digits and \"_\", not starting with a digit"

/** @internal */
export const EnvName = Schema.String.check(Schema.isPattern(envName, { message: envNameAdvice }))

/** @internal */
export const envNamePattern = envName

/** @internal */
export const isEnvName = (name: string): boolean => envName.test(name)

/** @internal */
export const FromEnv = Schema.Struct({ fromEnv: EnvName }).annotate({
  identifier: "FromEnv",
  description: "take the value from this variable of your environment"
})

/** @internal */
export const secretAdvice =
  "looks like a secret; keep it in your environment and write { \"fromEnv\": \"NAME_OF_THAT_VARIABLE\" } here instead"

/** @internal */
export const Setting = Schema.String.check(Schema.makeFilter((value) => !looksLikeSecret(value) || secretAdvice))
  .annotate({ identifier: "Setting", description: "a plain value that is not a secret, such as a base URL" })

const fromEnvAdvice =
  "{ \"fromEnv\": \"NAME_OF_A_VARIABLE\" } (letters, digits and \"_\"), or a plain setting such as a base URL"

// Judged whole, so a bad variable name is said at the value, with both forms it may take.
const FromEnvWhole = Schema.Struct({ fromEnv: Schema.String }).check(
  Schema.makeFilter((value) => envName.test(value.fromEnv) || fromEnvAdvice)
)

/**
 * A value of an account's environment or a provider's headers: `{ "fromEnv": "NAME" }` or a plain
 * setting. A string is only refused for looking like a secret, with the fix said.
 *
 * @internal
 */
export const EnvValue = Schema.Union([FromEnvWhole, Setting]).annotate({ message: fromEnvAdvice })

/** @internal */
export const Url = Schema.String.check(Schema.isPattern(/^https?:\/\/\S+$/u, { message: "an http:// or https:// URL" }))

/**
 * Whether an HTTP header's name says it carries a credential (`Authorization`, `Cookie`,
 * `x-api-key`, `x-goog-api-key`, `…-token`): its value is never a literal in the config.
 *
 * @internal
 */
export const secretHeader = (name: string): boolean =>
  /^(?:proxy-)?authori[sz]ation$|^(?:set-)?cookie$/i.test(name) || secretName(name.replace(/-/g, "_"))

/** @internal */
export const notSecret = (what: string) => (value: string) => !looksLikeSecret(value) || what

/** @internal */
export const positiveSeconds = Schema.Number.check(Schema.isGreaterThan(0, { message: "seconds, more than 0" }))
