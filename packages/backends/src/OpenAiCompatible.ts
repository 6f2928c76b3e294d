/**
 * The OpenAI-compatible provider: Chat Completions over HTTP (`POST {baseUrl}/chat/completions`,
 * SSE), with the key, when there is one, sent as a bearer token. OpenAI itself, and the local model
 * servers that speak its API (llama.cpp, vLLM, Ollama), so a fallback can need no vendor at all.
 *
 * @since 0.1.0
 */
import type * as Backend from "@fallback/core/Backend"
import type * as Effect from "effect/Effect"
import type * as HttpClient from "effect/http/HttpClient"
import * as HttpProvider from "./HttpProvider.js"

/**
 * What an OpenAI-compatible provider is told: its name and base URL (up to and including `/v1`),
 * and, where the server wants one, the variable its key is read from.
 *
 * @since 0.1.0
 * @category models
 */
export type Definition =
  & Pick<HttpProvider.Provider, "name" | "baseUrl">
  & Partial<Omit<HttpProvider.Provider, "kind" | "name" | "baseUrl">>

/**
 * The provider's definition.
 *
 * @since 0.1.0
 * @category constructors
 */
export const provider = (definition: Definition): HttpProvider.Provider =>
  HttpProvider.Provider.make({ models: [], ...definition, kind: "openai-compatible" })

/**
 * The provider's backend, e.g. `make({ name: "local", baseUrl: "http://127.0.0.1:11434/v1" })` for
 * Ollama, whose places are then `local/qwen3:8b`.
 *
 * @example
 * ```ts
 * import { NodeHttpClient } from "@effect/platform-node"
 * import { OpenAiCompatible } from "@fallback/backends"
 * import { Backend } from "@fallback/core"
 * import { Effect, Layer } from "effect"
 *
 * // Ollama on this machine: its places are local/qwen3:8b, local/llama3:8b, …
 * const backends = Layer.unwrap(
 *   Effect.map(OpenAiCompatible.make({ name: "local", baseUrl: "http://127.0.0.1:11434/v1" }), (backend) =>
 *     Backend.Backends.layer([backend]))
 * ).pipe(Layer.provide(NodeHttpClient.layerUndici))
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  definition: Definition,
  options?: HttpProvider.Options
): Effect.Effect<Backend.Backend, never, HttpClient.HttpClient> => HttpProvider.make(provider(definition), options)
