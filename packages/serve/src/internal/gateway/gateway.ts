import * as AiPlace from "@fallback/ai/AiPlace"
import * as Accounts from "@fallback/core/Accounts"
import * as Backend from "@fallback/core/Backend"
import * as Health from "@fallback/core/Health"
import * as Secret from "@fallback/core/Secret"
import * as Steps from "@fallback/core/Steps"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as HttpRouter from "effect/http/HttpRouter"
import type * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Result from "effect/Result"

import type * as Gateway from "../../Gateway.js"
import { anthropic } from "../wire/anthropic.js"
import { chat } from "../wire/chat.js"
import { countTokens } from "../wire/countTokens.js"
import type { Dialect } from "../wire/dialect.js"
import { responses } from "../wire/responses.js"
import { logged } from "./asked.js"
import * as Conversations from "./conversations.js"
import { begin, handler } from "./handler.js"
import { fromAnthropic, modelList } from "./models.js"
import { failure, plain } from "./respond.js"
import type { Served } from "./served.js"

const counted = (served: Served) => (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function*() {
    const opened = yield* begin(served, request, anthropic, true)
    if (Result.isFailure(opened)) return opened.failure
    const counted = countTokens(opened.success.body)
    if (Result.isFailure(counted)) {
      yield* logged(served, opened.success.begun, { status: 400, error: "invalid_request" })
      return failure(anthropic, { status: 400, kind: "invalid_request", message: counted.failure.message })
    }
    yield* logged(served, opened.success.begun, { status: 200 })
    return HttpServerResponse.jsonUnsafe(counted.success)
  })

const models = (served: Served) => (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function*() {
    const wire: Dialect = fromAnthropic(request) ? anthropic : chat
    const opened = yield* begin(served, request, wire, false)
    if (Result.isFailure(opened)) return opened.failure
    yield* logged(served, opened.success.begun, { status: 200 })
    return HttpServerResponse.jsonUnsafe(modelList(served.routes, wire === anthropic))
  })

const unknown = (served: Served) => (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function*() {
    const opened = yield* begin(served, request, plain, false)
    if (Result.isFailure(opened)) return opened.failure
    yield* logged(served, opened.success.begun, { status: 404, error: "not_found" })
    return failure(plain, {
      status: 404,
      kind: "not_found",
      message: `no route ${request.method} ${opened.success.begun.path}: this gateway serves POST /v1/messages, ` +
        "POST /v1/messages/count_tokens, POST /v1/chat/completions, POST /v1/responses and GET /v1/models"
    })
  })

/**
 * Codex's own OpenAI provider first asks for a WebSocket on `GET /v1/responses`; a 404 makes it try again 5 times
 * (about 6 s) before its HTTPS POST, a 426 Upgrade Required makes it POST at once. Answered before the token is
 * checked: codex sends no key on it, and the answer tells nothing.
 */
const noSocket = (served: Served) => (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function*() {
    if (request.headers.upgrade?.toLowerCase() !== "websocket") return yield* unknown(served)(request)
    const started = yield* Clock.currentTimeMillis
    const begun = { at: new Date(started).toISOString(), method: request.method, path: "/v1/responses", started }
    yield* logged(served, begun, { status: 426, error: "upgrade_required" })
    return failure(responses, {
      status: 426,
      kind: "invalid_request",
      message: "fallback serve answers the Responses wire over HTTP, not WebSocket: POST /v1/responses"
    })
  })

/** @internal */
export const layer = (
  options: Gateway.Options
): Layer.Layer<never, never, HttpRouter.HttpRouter | Gateway.Requirements> =>
  HttpRouter.use((router) =>
    Effect.gen(function*() {
      // held so no message the gateway writes can carry it
      if (options.token !== undefined) Secret.hold(String(Redacted.value(options.token)))
      const context = yield* Effect.context<Gateway.Requirements>()
      const made = yield* Effect.forEach(
        Object.entries(options.providers),
        ([name, provider]) => AiPlace.fromProvider(name, provider)
      )
      const backends = Backend.Backends.of({
        get: (cli) => Option.fromNullishOr(made.find((backend) => backend.cli === cli)),
        all: made
      })
      const served: Served = {
        options,
        routes: { providers: options.providers, aliases: options.aliases ?? {} },
        backends,
        context,
        steps: yield* Steps.Steps,
        health: yield* Health.Health,
        accounts: yield* Effect.serviceOption(Accounts.Accounts),
        conversations: yield* Conversations.make(options, backends, context)
      }
      yield* router.add("POST", "/v1/messages", handler(served, anthropic))
      yield* router.add("POST", "/v1/messages/count_tokens", counted(served))
      yield* router.add("POST", "/v1/chat/completions", handler(served, chat))
      yield* router.add("POST", "/v1/responses", handler(served, responses))
      yield* router.add("GET", "/v1/responses", noSocket(served))
      yield* router.add("GET", "/v1/models", models(served))
      yield* router.add("*", "*", unknown(served))
    })
  )
