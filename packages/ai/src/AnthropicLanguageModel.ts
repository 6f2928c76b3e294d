/**
 * fallback's Anthropic Messages provider as an `effect/ai` `LanguageModel`: text, streaming, tool
 * calls through a `Toolkit`, and structured output (asked through a forced tool), over the
 * program's `HttpClient`. Usable alone, or as a place in a chain (register it with
 * `AiPlace.make`). A refusal is read by the classifier every fallback backend uses, and fails as
 * the `AiError` reason of its kind (a 429 a `RateLimitError` with its `retryAfter`, …), the kind
 * noted in `metadata.fallback`.
 *
 * A call's `Generation` options (read on the caller's fiber as the call is made) are sent as
 * `max_tokens` (the model's `maxTokens` where none is set), `temperature`, `top_p`,
 * `stop_sequences` and `thinking: { type: "enabled", budget_tokens }`; while thinking, a length cap
 * at or under the budget is raised to the budget plus the cap, and `temperature` (and a `top_p`
 * under 0.95) is left out, as Anthropic asks; an answer asked for as an object (a forced tool) or
 * continued from an assistant prefill is asked without thinking, which Anthropic refuses there.
 *
 * Thinking comes back as reasoning parts marked `{ fallback: { family: "anthropic" } }` in their
 * metadata, with Anthropic's signature `{ anthropic: { signature } }` (a `redacted_thinking` block:
 * `{ anthropic: { redactedData } }`, its text empty). In a stream the family is on the
 * `reasoning-start` and `reasoning-end` parts, and the signature, which Anthropic sends last, on
 * the `reasoning-end` part (a redacted block's data on both); `Prompt.fromResponseParts` merges
 * them into the prompt part's options. A prompt's reasoning parts go back as `thinking` (or
 * `redacted_thinking`) blocks, first in their assistant message, only where they carry an
 * Anthropic signature that does not start `fallback:` and are marked `anthropic` or not at all;
 * any other reasoning is left out (Anthropic refuses a block it did not sign).
 * `options.anthropic.cacheControl` on a system message, a part or a message (its last block) is
 * sent as its block's `cache_control`.
 *
 * A key that is a Claude OAuth token (`sk-ant-oat…`) is sent as `Authorization: Bearer`, with the
 * `anthropic-beta: oauth-2025-04-20` Anthropic's SDK sends with such a token (added to any
 * `anthropic-beta` the headers give); any other key as `x-api-key`.
 *
 * @since 0.1.0
 */
import type * as LanguageModel from "effect/ai/LanguageModel"
import type * as Config from "effect/Config"
import type * as Effect from "effect/Effect"
import type * as HttpClient from "effect/http/HttpClient"
import type * as Layer from "effect/Layer"
import type * as Redacted from "effect/Redacted"

import * as internal from "./internal/model/anthropic.js"

/**
 * The model and how it is reached: the key (`ANTHROPIC_API_KEY` unless given), the origin
 * (`https://api.anthropic.com`, without `/v1`), headers for every call, the answer's length cap
 * (4096), and the name its places use (`anthropic`).
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly model: string
  readonly apiKey?: Config.Config<Redacted.Redacted> | Redacted.Redacted | undefined
  readonly baseUrl?: string | undefined
  readonly headers?: Readonly<Record<string, string>> | undefined
  readonly maxTokens?: number | undefined
  readonly name?: string | undefined
}

/**
 * Claude (or any model Anthropic Messages serves) as a `LanguageModel` service; its key is read,
 * and held as a secret, when it is made.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: (
  options: Options
) => Effect.Effect<LanguageModel.LanguageModel, Config.ConfigError, HttpClient.HttpClient> = internal.make

/**
 * {@link make} as the `LanguageModel` layer, given the `HttpClient` it sends with.
 *
 * @example
 * ```ts
 * import { NodeHttpClient } from "@effect/platform-node"
 * import { AnthropicLanguageModel } from "@fallback/ai"
 * import { LanguageModel } from "effect/ai"
 * import * as Effect from "effect/Effect"
 * import * as Layer from "effect/Layer"
 *
 * const claude = AnthropicLanguageModel.layer({ model: "claude-opus-5" }).pipe(Layer.provide(NodeHttpClient.layerUndici))
 * const program = LanguageModel.generateText({ prompt: "What is a place?" }).pipe(Effect.provide(claude))
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: (
  options: Options
) => Layer.Layer<LanguageModel.LanguageModel, Config.ConfigError, HttpClient.HttpClient> = internal.layer
