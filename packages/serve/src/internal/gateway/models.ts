import type * as HttpServerRequest from "effect/http/HttpServerRequest"

import { listed, type Routes } from "./route.js"

/** Whether a request is from an Anthropic client (it sends its version, or its key as `x-api-key`). @internal */
export const fromAnthropic = (request: HttpServerRequest.HttpServerRequest): boolean =>
  request.headers["anthropic-version"] !== undefined || request.headers["x-api-key"] !== undefined

/** The names a gateway answers to: its aliases (not the catch-all `*`), then every place its providers list. @internal */
export const namesOf = (routes: Routes): ReadonlyArray<string> => [
  ...new Set([...Object.keys(routes.aliases).filter((name) => name !== "*"), ...listed(routes)])
]

/** `GET /v1/models` in OpenAI's list shape, or Anthropic's for an Anthropic client. @internal */
export const modelList = (routes: Routes, anthropic: boolean): unknown => {
  const names = namesOf(routes)
  if (!anthropic) {
    return { object: "list", data: names.map((id) => ({ id, object: "model", created: 0, owned_by: "fallback" })) }
  }
  return {
    data: names.map((id) => ({ type: "model", id, display_name: id, created_at: "1970-01-01T00:00:00Z" })),
    has_more: false,
    first_id: names[0] ?? null,
    last_id: names[names.length - 1] ?? null
  }
}
