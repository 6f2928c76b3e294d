/**
 * Any `effect/ai` model as a place. Register a Layer that provides `LanguageModel` (a provider
 * package's model, or a layer of your own) under a CLI name, and places such as
 * `anthropic@work/claude-opus-5` or `openai/gpt-5.5` run their turns through it, like any other
 * backend: retried, walked along accounts and places, parked and cooled as their steps say.
 *
 * The layer is built the first time a turn reaches the place (never if nothing fails there), once
 * per account, and held as long as the agent. An account's key reaches it as a `Config`: the
 * registered variable, or the one the account's `env` points it to; never a literal in code.
 * What the model's calls fail with is read as a failure kind from its `AiError` reason (not its
 * words) by {@link AiFailure.toFailure}.
 *
 * @since 0.1.0
 */
import type * as Account from "@fallback/core/Account"
import type * as Backend from "@fallback/core/Backend"
import type * as Provider from "@fallback/core/Provider"
import type * as LanguageModel from "effect/ai/LanguageModel"
import type * as Config from "effect/Config"
import type * as Effect from "effect/Effect"
import type * as HttpClient from "effect/http/HttpClient"
import type * as Layer from "effect/Layer"
import type * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"

import * as internal from "./internal/aiPlace.js"
import * as providerModel from "./internal/model/provider.js"

/**
 * What a place's layer is built from: the model the place names, the key of its account as a
 * `Config`, and the account itself.
 *
 * @since 0.1.0
 * @category models
 */
export interface At {
  readonly model: string
  readonly key: Config.Config<Redacted.Redacted>
  readonly account: Option.Option<Account.Account>
}

/**
 * A registration: the CLI name places use (`anthropic` in `anthropic@work/claude-opus-5`), the
 * models it serves with their context windows where known, the variable its key is read from,
 * and the layer that provides `LanguageModel` at one place.
 *
 * @since 0.1.0
 * @category models
 */
export interface Registration<E, R> {
  readonly cli: string
  readonly models?: ReadonlyArray<Backend.Model> | undefined
  readonly key?: string | undefined
  /**
   * Whether its models continue an answer from an assistant prefill (a last assistant message),
   * so a streamed call cut at another place after content reached the caller goes on here from
   * what was delivered; false when not said (a model's own `continues` wins).
   */
  readonly continues?: boolean | undefined
  /**
   * The kind of place it is, for the agent's limits per kind (`Agent.Options.limits`): `"http"`
   * for an HTTP API's quick first token and steady stream; when not said, the agent's own
   * `firstByte` and `idle` bound it.
   */
  readonly kind?: Backend.Kind | undefined
  readonly layer: (at: At) => Layer.Layer<LanguageModel.LanguageModel, E, R>
}

/**
 * A backend whose places run through a registered `LanguageModel` layer. What the layer needs
 * (an `HttpClient`, say) is taken from the context here, once.
 *
 * @example
 * ```ts
 * import { AiPlace, AnthropicLanguageModel } from "@fallback/ai"
 *
 * const anthropic = AiPlace.make({
 *   cli: "anthropic",
 *   key: "ANTHROPIC_API_KEY",
 *   models: [{ name: "claude-opus-5", contextWindow: 200_000 }],
 *   layer: ({ model, key }) => AnthropicLanguageModel.layer({ model, apiKey: key })
 * })
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: <E, R>(registration: Registration<E, R>) => Effect.Effect<Backend.Backend, never, R> = internal.make

/**
 * An HTTP provider as the config file defines it (`Provider.Provider`: its kind, base URL, key
 * variable, models, headers, length cap), as a backend whose places run through fallback's own
 * `effect/ai` models (`AnthropicLanguageModel`, or `OpenAiLanguageModel` on Chat Completions for
 * an OpenAI-compatible server): in a `FallbackAi` chain its places get the whole call (messages,
 * tools, the schema of an object), not the conversation as text. Its places are `name/MODEL`; an
 * account of it may point the key variable elsewhere, as for any place. Its models continue a
 * cut answer as the provider's config says (`continues`; Anthropic Messages by default, never
 * OpenAI's own API); they are HTTP places (`kind: "http"`), bounded by the agent's HTTP limits.
 *
 * @example
 * ```ts
 * import { AiPlace, FallbackAi } from "@fallback/ai"
 *
 * const local = AiPlace.fromProvider("local", { kind: "openai-compatible", baseUrl: "http://127.0.0.1:11434/v1" })
 * const chain = FallbackAi.chain(["local/qwen3:8b", "local/llama3:8b"], [local])
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromProvider = (
  name: string,
  provider: Provider.Provider
): Effect.Effect<Backend.Backend, never, HttpClient.HttpClient> =>
  internal.make({
    cli: name,
    key: provider.key?.fromEnv,
    kind: "http",
    ...internal.continuation(provider),
    layer: ({ key, model }) => providerModel.layer(name, provider, model, provider.key === undefined ? undefined : key)
  })
