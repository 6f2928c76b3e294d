/**
 * The Anthropic Messages provider: Claude over its HTTP API (`POST {baseUrl}/v1/messages`, SSE),
 * with the key sent as `x-api-key`. Anthropic's own API is the default; any server speaking
 * Messages (a gateway, the testkit's mock provider) is a base URL away.
 *
 * @since 0.1.0
 */
import type * as Backend from "@fallback/core/Backend"
import type * as Effect from "effect/Effect"
import type * as HttpClient from "effect/http/HttpClient"
import * as HttpProvider from "./HttpProvider.js"

/**
 * What an Anthropic Messages provider is told; everything has a default: name `anthropic`, base
 * URL `https://api.anthropic.com`, key from `ANTHROPIC_API_KEY`.
 *
 * @since 0.1.0
 * @category models
 */
export type Definition = Partial<Omit<HttpProvider.Provider, "kind">>

/**
 * The provider's definition, with the defaults filled in.
 *
 * @since 0.1.0
 * @category constructors
 */
export const provider = (definition: Definition = {}): HttpProvider.Provider =>
  HttpProvider.Provider.make({
    name: "anthropic",
    baseUrl: "https://api.anthropic.com",
    key: { fromEnv: "ANTHROPIC_API_KEY" },
    models: [],
    ...definition,
    kind: "anthropic-messages"
  })

/**
 * The provider's backend.
 *
 * @example
 * ```ts
 * import { NodeHttpClient } from "@effect/platform-node"
 * import { AnthropicMessages } from "@fallback/backends"
 * import { Backend } from "@fallback/core"
 * import { Effect, Layer } from "effect"
 *
 * // Anthropic's API, the key read from ANTHROPIC_API_KEY: places anthropic/claude-sonnet-4-5, …
 * const backends = Layer.unwrap(
 *   Effect.map(AnthropicMessages.make(), (backend) => Backend.Backends.layer([backend]))
 * ).pipe(Layer.provide(NodeHttpClient.layerUndici))
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  definition: Definition = {},
  options?: HttpProvider.Options
): Effect.Effect<Backend.Backend, never, HttpClient.HttpClient> => HttpProvider.make(provider(definition), options)
