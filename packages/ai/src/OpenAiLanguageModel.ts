/**
 * fallback's OpenAI providers as `effect/ai` `LanguageModel`s: the Responses API (OpenAI's own,
 * the default) and Chat Completions, which OpenAI and every OpenAI-compatible server (llama.cpp,
 * vLLM, Ollama) speak. Text, streaming, tool calls through a `Toolkit`, and structured output
 * (a JSON Schema format), over the program's `HttpClient`; usable alone or as a place in a chain
 * (register it with `AiPlace.make`). A refusal is read by the classifier every fallback backend
 * uses and fails as the `AiError` reason of its kind, the kind noted in `metadata.fallback`.
 *
 * A call's `Generation` options (read on the caller's fiber as the call is made): Chat
 * Completions sends `max_tokens` (which the compatible servers read), `temperature`, `top_p`,
 * `stop` and a thinking budget as `reasoning_effort`; Responses sends `max_output_tokens`,
 * `temperature`, `top_p` and `reasoning: { effort }` (it takes no stop sequences). A budget under
 * 4,096 tokens is effort `low`, under 16,384 `medium`, else `high`. Reasoning comes back (Chat's
 * `reasoning_content` or `reasoning`, Responses' reasoning summaries) as reasoning parts marked
 * `{ fallback: { family: "openai" } }`; a prompt's reasoning parts are never sent.
 *
 * @since 0.1.0
 */
import type * as LanguageModel from "effect/ai/LanguageModel"
import type * as Config from "effect/Config"
import type * as Effect from "effect/Effect"
import type * as HttpClient from "effect/http/HttpClient"
import type * as Layer from "effect/Layer"
import type * as Redacted from "effect/Redacted"

import * as internal from "./internal/model/openAi.js"

/**
 * The model and how it is reached: `api` (`responses` unless said, or `chat` for Chat
 * Completions), the key (`OPENAI_API_KEY` unless given; `null` for a server that takes none), the
 * base URL up to and including `/v1` (`https://api.openai.com/v1`), headers for every call, and
 * the name its places use (`openai`).
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly model: string
  readonly api?: "responses" | "chat" | undefined
  readonly apiKey?: Config.Config<Redacted.Redacted> | Redacted.Redacted | null | undefined
  readonly baseUrl?: string | undefined
  readonly headers?: Readonly<Record<string, string>> | undefined
  readonly name?: string | undefined
}

/**
 * The model as a `LanguageModel` service, on the wire `api` names; its key, where it has one, is
 * read and held as a secret when it is made.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: (
  options: Options
) => Effect.Effect<LanguageModel.LanguageModel, Config.ConfigError, HttpClient.HttpClient> = internal.make

/**
 * {@link make} as the `LanguageModel` layer: what it needs is an `HttpClient`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: (
  options: Options
) => Layer.Layer<LanguageModel.LanguageModel, Config.ConfigError, HttpClient.HttpClient> = internal.layer

/**
 * An OpenAI-compatible server's model (Chat Completions at `baseUrl`, no key unless given) as the
 * `LanguageModel` layer.
 *
 * @example
 * ```ts
 * import { NodeHttpClient } from "@effect/platform-node"
 * import { OpenAiLanguageModel } from "@fallback/ai"
 * import { LanguageModel } from "effect/ai"
 * import * as Effect from "effect/Effect"
 * import * as Layer from "effect/Layer"
 *
 * const local = OpenAiLanguageModel.layerCompatible({
 *   name: "local",
 *   baseUrl: "http://127.0.0.1:11434/v1",
 *   model: "qwen3:8b"
 * }).pipe(Layer.provide(NodeHttpClient.layerUndici))
 * const program = LanguageModel.generateText({ prompt: "What is a place?" }).pipe(Effect.provide(local))
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layerCompatible: (
  options: Omit<Options, "api" | "baseUrl" | "apiKey"> & {
    readonly baseUrl: string
    readonly apiKey?: Config.Config<Redacted.Redacted> | Redacted.Redacted | undefined
  }
) => Layer.Layer<LanguageModel.LanguageModel, Config.ConfigError, HttpClient.HttpClient> = internal.layerCompatible
