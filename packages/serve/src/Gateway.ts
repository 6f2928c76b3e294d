/**
 * fallback as a gateway: the wires agent CLIs and SDKs speak, served from an `effect/http`
 * router, each request answered through fallback's engine. A client points its base URL at it
 * (`ANTHROPIC_BASE_URL`, an OpenAI base URL) and names a place, or an alias of one, as its model:
 * - Anthropic Messages: `POST /v1/messages` (streamed and whole), `POST /v1/messages/count_tokens`;
 * - OpenAI: `POST /v1/chat/completions`, `POST /v1/responses` (streamed and whole), `GET /v1/models`.
 *
 * A conversation (the client's session header, `prompt_cache_key`, or a hash of its first
 * messages) keeps one agent: where a turn moved, by account or by place, the next turn starts.
 * The caller's own key is passed through as the first account of a place of its own wire's family,
 * before the accounts the config gives; a move to a place of the other wire translates the call
 * and its answer. Failures before the first content are never seen by the client; a streamed
 * answer cut after it is continued where the next place can (its text still one block), else
 * closed with the wire's own error event. When every place is cooling the client gets its wire's rate-limit error with a
 * `Retry-After` of the soonest.
 *
 * @since 1.1.0
 */
import type * as FallbackAi from "@fallback/ai/FallbackAi"
import type * as Health from "@fallback/core/Health"
import type * as Provider from "@fallback/core/Provider"
import type * as Steps from "@fallback/core/Steps"
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import type * as HttpClient from "effect/http/HttpClient"
import type * as HttpRouter from "effect/http/HttpRouter"
import type * as Layer from "effect/Layer"
import type * as Redacted from "effect/Redacted"

import * as internal from "./internal/gateway/gateway.js"

/**
 * What a gateway serves: the providers its places run at (each a config file's `providers`
 * entry, by name), model aliases (a name clients send, such as `claude-sonnet-4-5`, to the place
 * it means; `"*"` for any name nothing else routes, such as a client's default model), the bearer token clients must send (required when it listens beyond loopback),
 * whether a caller's own key is passed through (yes unless `false`), the longest request body
 * (32 MiB unless said), how many conversations it remembers and for how long idle (10,000; an
 * hour: at capacity the least recently used one no request is answering right now is forgotten to
 * make room, and only when every one is answering a request does a new conversation's turn get an
 * agent for itself alone, not kept), the chain's agent, and where each request's log line goes.
 *
 * @since 1.1.0
 * @category models
 */
export interface Options {
  readonly providers: Readonly<Record<string, Provider.Provider>>
  readonly aliases?: Readonly<Record<string, string>> | undefined
  readonly token?: Redacted.Redacted | undefined
  readonly passThrough?: boolean | undefined
  readonly bodyLimit?: number | undefined
  readonly conversations?:
    | { readonly capacity?: number | undefined; readonly idle?: Duration.Input | undefined }
    | undefined
  readonly agent?: FallbackAi.Config | undefined
  readonly log?: ((line: Logged) => Effect.Effect<void>) | undefined
}

/**
 * One request, as its log line says it: when, which route, the model asked for, the place that
 * answered, whether the answer moved (by account or by place) and where it started (`from`, when
 * it moved), the conversation (a 12-hex hash of what names it) and whether its agent is `kept` for
 * its next turn (`false` only when every conversation slot was answering a request at once: this
 * turn then had an agent of its own), the status (499 when the client went away before its answer
 * began), the usage, how long it took, and the error's kind when it failed. Never a key, a token
 * or a prompt.
 *
 * @since 1.1.0
 * @category models
 */
export interface Logged {
  readonly at: string
  readonly method: string
  readonly path: string
  readonly status: number
  readonly model?: string | undefined
  readonly place?: string | undefined
  readonly moved?: boolean | undefined
  readonly from?: string | undefined
  readonly conversation?: string | undefined
  readonly kept?: boolean | undefined
  readonly stream?: boolean | undefined
  readonly usage?: { readonly input: number; readonly output: number } | undefined
  readonly ms: number
  readonly error?: string | undefined
}

/**
 * What the gateway's routes need: the steps and health every agent uses, and the `HttpClient`
 * its places send with. Accounts and Notices are used when given.
 *
 * @since 1.1.0
 * @category models
 */
export type Requirements = Steps.Steps | Health.Health | HttpClient.HttpClient

/**
 * The gateway's routes, added to the `HttpRouter` (serve it with `HttpRouter.serve` on a
 * platform's server, `NodeHttpServer.layer` on Node). The providers' backends, the conversations
 * and their agents are made once, when the layer is built, and held as long as it is.
 *
 * @example
 * ```ts
 * import { NodeHttpClient, NodeHttpServer } from "@effect/platform-node"
 * import { Health, Steps } from "@fallback/core"
 * import { Gateway } from "@fallback/serve"
 * import { Layer } from "effect"
 * import { HttpRouter } from "effect/http"
 * import * as http from "node:http"
 *
 * const gateway = HttpRouter.serve(
 *   Gateway.layer({
 *     providers: {
 *       anthropic: { kind: "anthropic-messages", baseUrl: "https://api.anthropic.com", key: { fromEnv: "ANTHROPIC_API_KEY" } },
 *       openai: { kind: "openai-compatible", baseUrl: "https://api.openai.com/v1", key: { fromEnv: "OPENAI_API_KEY" } }
 *     },
 *     aliases: { "claude-sonnet-4-5": "anthropic/claude-sonnet-4-5" }
 *   })
 * ).pipe(
 *   Layer.provide(NodeHttpServer.layer(() => http.createServer(), { port: 4000, host: "127.0.0.1" })),
 *   Layer.provide(Layer.mergeAll(Steps.Steps.layerFile("fallback.json"), Health.Health.layerMemory(), NodeHttpClient.layerUndici))
 * )
 * // Layer.launch(gateway) serves until interrupted
 * ```
 *
 * @since 1.1.0
 * @category layers
 */
export const layer: (options: Options) => Layer.Layer<never, never, HttpRouter.HttpRouter | Requirements> =
  internal.layer
