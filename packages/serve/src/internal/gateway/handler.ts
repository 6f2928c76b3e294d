import * as Place from "@fallback/core/Place"
import * as Secret from "@fallback/core/Secret"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import type * as HttpServerRequest from "effect/http/HttpServerRequest"
import type * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as Result from "effect/Result"

import type { Dialect, Failed } from "../wire/dialect.js"
import { type Begun, logged } from "./asked.js"
import { jsonBody } from "./body.js"
import { Conversation, conversationOf } from "./conversations.js"
import { callerAccount, credentialsOf } from "./credentials.js"
import { failure } from "./respond.js"
import { placeOf } from "./route.js"
import type { Served } from "./served.js"
import { streamed } from "./streamed.js"
import { whole } from "./whole.js"

/** The opening of every request: its log line's start, its credentials checked, its body read. @internal */
export const begin = (
  served: Served,
  request: HttpServerRequest.HttpServerRequest,
  dialect: Pick<Dialect, "error">,
  body: boolean
): Effect.Effect<
  Result.Result<
    { readonly begun: Begun; readonly key: string | undefined; readonly body: unknown },
    HttpServerResponse.HttpServerResponse
  >
> =>
  Effect.gen(function*() {
    const started = yield* Clock.currentTimeMillis
    const begun: Begun = {
      at: new Date(started).toISOString(),
      method: request.method,
      path: request.url.split("?")[0]!,
      started
    }
    const refuse = (failed: Failed) =>
      Effect.as(
        logged(served, begun, { status: failed.status, error: failed.kind }),
        Result.fail(failure(dialect, failed))
      )
    const credentials = credentialsOf(request.headers, served.options.token)
    if (!credentials.allowed) {
      return yield* refuse({
        status: 401,
        kind: "authentication",
        message: "this gateway wants its token: send it as Authorization: Bearer <token> or x-api-key: <token>"
      })
    }
    if (!body) return Result.succeed({ begun, key: credentials.key, body: undefined })
    const read = yield* jsonBody(request, served.options.bodyLimit ?? 32 * 1024 * 1024)
    if (Result.isFailure(read)) return yield* refuse(read.failure)
    return Result.succeed({ begun, key: credentials.key, body: read.success })
  })

const familyOf = { "anthropic-messages": "anthropic", "openai-compatible": "openai" } as const

/** Where a call starts: its place, at the caller's own account where its key is passed through. */
const startOf = (served: Served, dialect: Dialect, place: Place.Place, key: string | undefined) => {
  const provider = served.routes.providers[place.cli]
  if (
    key === undefined || served.options.passThrough === false || provider?.key === undefined ||
    place.account !== undefined || familyOf[provider.kind] !== dialect.family
  ) return { start: place, caller: undefined }
  const caller = callerAccount(key, provider.key.fromEnv)
  return { start: new Place.Place({ cli: place.cli, account: caller.name, model: place.model }), caller }
}

/** A defect while answering: the wire's 500, its message masked, and its log line. */
const broke = (served: Served, dialect: Dialect, begun: Begun, model: string | undefined) => (defect: unknown) =>
  Effect.as(
    logged(served, begun, { status: 500, model, error: "api_error" }),
    failure(dialect, {
      status: 500,
      kind: "api_error",
      message: Secret.mask(`the gateway failed: ${String(defect)}`)
    })
  )

/** The handler of one wire's call route: read, routed, answered whole or streamed. @internal */
export const handler = (served: Served, dialect: Dialect) => {
  // Where each model and key starts, made once (a Place is a Schema class, checked as it is made).
  const starts = new Map<string, ReturnType<typeof startOf>>()
  return (
    request: HttpServerRequest.HttpServerRequest
  ): Effect.Effect<HttpServerResponse.HttpServerResponse> =>
    Effect.gen(function*() {
      const opened = yield* begin(served, request, dialect, true)
      if (Result.isFailure(opened)) return opened.failure
      const { begun, body, key } = opened.success
      const refuse = (failed: Failed, model?: string) =>
        Effect.as(logged(served, begun, { status: failed.status, model, error: failed.kind }), failure(dialect, failed))
      let model: string | undefined
      return yield* Effect.gen(function*() {
        const read = dialect.read(body)
        if (Result.isFailure(read)) {
          return yield* refuse({
            status: 400,
            kind: "invalid_request",
            message: read.failure.message,
            ...(read.failure.param === undefined ? {} : { param: read.failure.param })
          })
        }
        const call = read.success
        model = call.model
        const named = `${call.model}\n${key === undefined ? "-" : `+${key}`}`
        let started = starts.get(named)
        if (started === undefined) {
          const place = placeOf(call.model, served.routes)
          if (Result.isFailure(place)) return yield* refuse(place.failure, call.model)
          started = startOf(served, dialect, place.success, key)
          if (starts.size >= 10_000) starts.clear()
          starts.set(named, started)
        }
        const { caller, start } = started
        const conversation = new Conversation(conversationOf(request.headers, call), start, caller)
        const asked = { served, dialect, call, start, conversation, begun }
        return yield* (call.stream ? streamed(asked) : whole(asked))
      }).pipe(Effect.catchDefect((defect) => broke(served, dialect, begun, model)(defect)))
    }).pipe(
      Effect.catchDefect((defect) =>
        Effect.succeed(failure(dialect, {
          status: 500,
          kind: "api_error",
          message: Secret.mask(`the gateway failed: ${String(defect)}`)
        }))
      )
    )
}
