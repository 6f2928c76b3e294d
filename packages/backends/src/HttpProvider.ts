/**
 * An HTTP provider: a backend that runs turns by calling a model API instead of a CLI. Its
 * definition is a value a program makes (or a config file holds): the name places use for it, its
 * kind (Anthropic Messages or OpenAI-compatible Chat Completions), its base URL, where its key
 * comes from, and its models. `local/qwen3:8b` can be a llama.cpp or Ollama server on localhost,
 * `anthropic@key2/claude-sonnet-4-5` an API account.
 *
 * A key is never written down: `key: { fromEnv: "ANTHROPIC_API_KEY" }` names the variable it is read
 * from when a turn runs, and an account of the provider may point that variable elsewhere
 * (`env: { ANTHROPIC_API_KEY: { fromEnv: "ANTHROPIC_KEY_2" } }`). No key, error or notice ever
 * shows it.
 *
 * How a failed turn is read: 429, 529 and 503 (overloaded, a local server still loading) are
 * RateLimited, with `retry-after` (or the vendor's reset headers) as the wait, and said as an
 * overload for 529 or overloaded words; 402 and the vendors' billing and spent-quota errors are
 * QuotaExhausted, until the reset headers' time (a header is a hint: a wait of at most
 * {@link longestAsked}, a value it cannot read is none); 401 and 403 are AuthRefused, as is a key
 * variable that is not set; 404 is ModelNotFound; 413 and "prompt is too long" in any vendor's words
 * are ContextTooLong; a content-policy refusal (`content_policy_violation`, `content_filter`, also as
 * a 200's `finish_reason`, and Anthropic's `stop_reason: "refusal"`) is Refused; 408 and 504 are the
 * provider's own Timeout; 502 is ConnectionLost; 500 and anything else are Unknown. An error
 * event inside the stream is read the same way from its type. A connection refused or reset, or a
 * stream cut or ended before the vendor's end marker, is ConnectionLost (the socket went away; the
 * conversation did not), and a stream that sends nothing for the `idle` time is Unresponsive. A
 * request that never answers at all is left to the engine's first-byte timeout. A 200 whose body
 * is no stream of events (an error as JSON, an HTML page) is read by its words. Of a refusal's body
 * the first 64 KiB are read; an event of a stream past 1 MiB fails the turn as Unknown.
 *
 * A session answers a turn two ways, read alike: `turn` streams the events as the body arrives;
 * `reply` sends the same request, reads the body whole and answers with all its events at once, or
 * with the same failure the stream would have had. A reply has no idle time of its own: the engine
 * times the whole reply.
 *
 * A request is a span of its own (`http.client POST`, with trace headers sent on) only where the
 * program installed a tracer; under Effect's native tracer, which exports nothing, it is not traced.
 *
 * Requests go through the HttpClient, or, where the program gives an undici dispatcher
 * ({@link layerDirect}), straight to it, past the HttpClient (two to three times the replies a
 * second): the layer chooses, nothing else does; the same limits, failures and texts either way.
 *
 * @since 0.1.0
 */
import type * as Backend from "@fallback/core/Backend"
import * as Classify from "@fallback/core/Classify"
import type * as Failure from "@fallback/core/Failure"
import * as Place from "@fallback/core/Place"
import * as Providers from "@fallback/core/Provider"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as HttpClient from "effect/http/HttpClient"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"

import type * as direct from "./internal/http/direct.js"
import * as internal from "./internal/http/provider.js"

/**
 * The two wire formats: Anthropic Messages (`POST {baseUrl}/v1/messages`) and OpenAI-compatible
 * Chat Completions (`POST {baseUrl}/chat/completions`, which OpenAI, llama.cpp, vLLM and Ollama
 * all serve).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Kind = Providers.Kind

/**
 * @since 0.1.0
 * @category models
 */
export type Kind = typeof Kind.Type

/**
 * A provider's definition: its `name` (the CLI part of the places it serves, `local` in
 * `local/qwen3:8b`) and what the config file says of a provider (core's Provider.Provider): `kind`,
 * `baseUrl` (for Anthropic Messages the origin without `/v1`; for OpenAI-compatible up to and
 * including `/v1`), the `key` variable, the `models` and their context windows, and `maxTokens`,
 * the answer's length cap sent to Anthropic Messages (4096 unless said).
 *
 * @since 0.1.0
 * @category models
 */
export class Provider extends Schema.Class<Provider>("@fallback/backends/HttpProvider/Provider")({
  ...Providers.Provider.fields,
  name: Place.Cli,
  models: Providers.Provider.fields.models.schema.pipe(
    Schema.withDecodingDefaultKey(Effect.succeed([])),
    Schema.withConstructorDefault(Effect.succeed([]))
  )
}, { identifier: "Provider" }) {}

/**
 * How a provider's backend behaves: `idle` is how long an answer's stream may go without a byte
 * before the turn fails as Unresponsive (the provider's `timeouts.idle`, else 60 s; the stall limit
 * of a streamed turn; a reply is timed by the engine). `discover` asks the provider's model
 * list (`GET /v1/models`, within 10 s, when the backend is made) for the context windows of its
 * models (`context_length`, `context_window`, `max_model_len`, `max_input_tokens`): the config's
 * `models[].contextWindow` wins where given, the listed models join the config's, and a list that
 * fails leaves the config's alone. The provider's
 * `timeouts.firstByte` bounds how long its response may take to begin, and its `headers` go with
 * every request (`{ fromEnv }` values read when a session opens, held as secrets).
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly idle?: Duration.Input | undefined
  readonly discover?: boolean | undefined
}

/**
 * An undici dispatcher the HTTP providers send every request to (`check`'s too), past the
 * HttpClient, where {@link layerDirect} gives one; where none is given, every request goes through
 * the HttpClient. The limits, failures, spans and their texts are the same either way.
 *
 * @since 0.1.0
 * @category services
 */
export class Dispatcher extends Context.Service<Dispatcher, Dispatcher.Service>()(
  "@fallback/backends/HttpProvider/Dispatcher"
) {}

/**
 * @since 0.1.0
 * @category models
 */
export declare namespace Dispatcher {
  /**
   * What a provider asks of the dispatcher: undici 7's `dispatch`, which an undici `Agent` or
   * `Pool` has (the one `NodeHttpClient.layerUndici` runs on too).
   *
   * @since 0.1.0
   * @category models
   */
  export interface Service extends direct.Dispatcher {}
}

/**
 * The direct transport: the providers send their requests to the dispatcher `dispatcher` holds
 * (give `NodeHttpClient.Dispatcher`, so that the HttpClient and the providers share one
 * connection pool). Without this layer they send through the HttpClient.
 *
 * @example
 * ```ts
 * import { NodeHttpClient } from "@effect/platform-node"
 * import { HttpProvider } from "@fallback/backends"
 * import { Layer } from "effect"
 *
 * // The HttpClient and, as the Dispatcher, the undici Agent it runs on: one connection pool.
 * const http = Layer.merge(
 *   NodeHttpClient.layerUndiciNoDispatcher,
 *   HttpProvider.layerDirect(NodeHttpClient.Dispatcher)
 * ).pipe(Layer.provide(NodeHttpClient.layerDispatcher))
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layerDirect = <I>(dispatcher: Context.Key<I, Dispatcher.Service>): Layer.Layer<Dispatcher, never, I> =>
  Layer.effect(Dispatcher, Effect.service(dispatcher))

/**
 * The backend of a provider, for either kind. It sends its requests through the HttpClient given
 * when it is made, or to the {@link Dispatcher} where one is given.
 *
 * @example
 * ```ts
 * import { NodeHttpClient } from "@effect/platform-node"
 * import { HttpProvider } from "@fallback/backends"
 * import { Backend } from "@fallback/core"
 * import { Effect, Layer } from "effect"
 *
 * const local = HttpProvider.Provider.make({
 *   name: "local",
 *   kind: "openai-compatible",
 *   baseUrl: "http://127.0.0.1:11434/v1",
 *   models: [{ name: "qwen3:8b", contextWindow: 40960 }]
 * })
 *
 * const backends = Layer.unwrap(Effect.map(HttpProvider.make(local), (backend) => Backend.Backends.layer([backend])))
 *   .pipe(Layer.provide(NodeHttpClient.layerUndici))
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  provider: Provider,
  options: Options = {}
): Effect.Effect<Backend.Backend, never, HttpClient.HttpClient> =>
  Effect.flatMap(Effect.serviceOption(Dispatcher), (dispatcher) =>
    internal.make(provider, {
      idle: Duration.fromInputUnsafe(options.idle ?? Duration.seconds(provider.timeouts?.idle ?? 60)),
      firstByte: provider.timeouts?.firstByte === undefined ? undefined : Duration.seconds(provider.timeouts.firstByte),
      dispatcher,
      discover: options.discover
    }))

/**
 * What a provider answered when it did not answer: the HTTP status (none for an error inside a
 * stream), the response headers, and the body as text.
 *
 * @since 0.1.0
 * @category models
 */
export type Refusal = Classify.Refusal

/**
 * The failure a provider's refusal is, by its status, its rate-limit headers and its body's
 * words: core's `Classify.classify`, the one classifier every backend uses.
 *
 * @since 0.1.0
 * @category utils
 */
export const classify: (refusal: Refusal, place: Place.Place, now: number) => Failure.Failure = Classify.classify

/**
 * The longest wait, in millis, a provider's rate-limit headers (or words) can ask for: 30 minutes,
 * the cooldown the escalating preset registers. A longer one is read as this.
 *
 * @since 0.1.0
 * @category constants
 */
export const longestAsked: number = Classify.longestAsked
