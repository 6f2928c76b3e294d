/**
 * An HTTP provider a config defines: its wire format, where it listens, the variable its key is
 * read from, the models it serves, the headers sent with every request and its own limits. The
 * record's key is the CLI part of the places it serves (`local` in `local/qwen3:8b`).
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import * as values from "./internal/config/values.js"
import * as Place from "./Place.js"

const headerName = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/

/**
 * Headers sent with every request to a provider, by name: a plain value, or `{ "fromEnv": "NAME" }`
 * for one that is a credential. A header that carries a credential by its name (`Authorization`,
 * `x-api-key`, `…-token`) takes its value only from the environment.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Headers = Schema.Record(Schema.String, values.EnvValue).check(
  Schema.makeFilter((headers) => {
    const badName = Object.keys(headers).find((name) => !headerName.test(name))
    if (badName !== undefined) {
      return { path: [badName], issue: "an HTTP header's name: letters, digits and \"-\", no spaces or colons" }
    }
    const named = Object.keys(headers).find((name) => typeof headers[name] === "string" && values.secretHeader(name))
    return named === undefined ||
      { path: [named], issue: `the header ${named} carries a credential: ${values.secretAdvice}` }
  }, { toJsonSchema: () => ({ propertyNames: { pattern: headerName.source } }) })
).annotate({ identifier: "Headers", description: "headers sent with every request, by name" })

/**
 * A provider's own limits, in seconds: `firstByte`, the longest its response may take to begin
 * (shorter than the run's first-byte limit to give up on it sooner); `idle`, the longest an answer's
 * stream may go quiet once it began (60 s unless said; `--idle` says it for every provider).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Timeouts = Schema.Struct({
  firstByte: Schema.optionalKey(values.positiveSeconds),
  idle: Schema.optionalKey(values.positiveSeconds)
}).annotate({ identifier: "Timeouts", description: "the provider's own limits, in seconds" })

/**
 * The wire formats fallback speaks to a provider.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Kind = Schema.Literals(["anthropic-messages", "openai-compatible"]).annotate({
  message: "\"anthropic-messages\" or \"openai-compatible\""
})

/**
 * An HTTP provider the config defines: `kind` is its wire format, `baseUrl` where it listens (for
 * Anthropic Messages the origin without `/v1`, for OpenAI-compatible up to and including `/v1`),
 * `key` the variable its key is read from (none for a local server that wants none), `models` what
 * it serves with their context windows, `headers` sent with every request and `timeouts` its own
 * limits.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Provider = Schema.Struct({
  kind: Kind,
  baseUrl: values.Url.check(Schema.makeFilter(values.notSecret(
    "the URL holds a secret; keep it in your environment and name it as the provider's \"key\": { \"fromEnv\": \"NAME_OF_THAT_VARIABLE\" }"
  ))),
  key: Schema.optionalKey(values.FromEnv),
  models: Schema.optionalKey(Schema.Array(Schema.Struct({
    name: Place.Model,
    contextWindow: Schema.optionalKey(Schema.Int.check(Schema.isGreaterThan(0))),
    continues: Schema.optionalKey(Schema.Boolean)
  }))),
  continues: Schema.optionalKey(Schema.Boolean),
  maxTokens: Schema.optionalKey(Schema.Int.check(Schema.isGreaterThan(0))),
  headers: Schema.optionalKey(Headers),
  timeouts: Schema.optionalKey(Timeouts)
}).annotate({ identifier: "Provider", description: "an HTTP provider, named by its key" })

/**
 * @since 0.1.0
 * @category models
 */
export type Provider = typeof Provider.Type
