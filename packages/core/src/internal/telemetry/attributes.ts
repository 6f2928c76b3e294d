import type { Notice } from "../../Notice.js"
import type * as Place from "../../Place.js"

/** @internal */
export const attribute = {
  operation: "gen_ai.operation.name",
  provider: "gen_ai.provider.name",
  system: "gen_ai.system",
  model: "gen_ai.request.model",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  errorType: "error.type",
  place: "fallback.place",
  account: "fallback.account",
  attempt: "fallback.attempt",
  attempts: "fallback.attempts",
  moveBy: "fallback.move.by",
  moveTo: "fallback.move.to",
  waitMs: "fallback.wait_ms",
  outcome: "fallback.outcome",
  answeredAt: "fallback.answered.place",
  notice: "fallback.notice",
  skipWhy: "fallback.skip.why",
  reason: "fallback.stop.reason"
} as const

/**
 * The HTTP headers whose values a span shows: those that say how a request went. Any other
 * header (one a provider echoes a key in, `www-authenticate`, …) is redacted in the HTTP client's
 * spans inside an attempt, and left out of what the command exports.
 *
 * @internal
 */
export const keptHeader =
  /^(?:content-type|content-length|content-encoding|date|retry-after|x-ratelimit-[a-z0-9-]+|anthropic-ratelimit-[a-z0-9-]+|x-request-id|request-id|traceparent|tracestate)$/i

/**
 * Every header name {@link keptHeader} does not keep, as the HttpClient's span redaction reads it.
 *
 * @internal
 */
export const unkeptHeader = new RegExp(`^(?!${keptHeader.source.slice(1, -1)}$)`, "i")

/** @internal */
export const spanName = { turn: "invoke_agent fallback", wait: "fallback.wait" } as const

/** @internal */
export const attemptSpanName = (place: Place.Place) => `chat ${place.model}`

/** @internal */
export const eventName: Record<Notice["_tag"], string> = {
  Retrying: "fallback.retry",
  Moving: "fallback.move",
  Skipping: "fallback.skip",
  Compacting: "fallback.compact",
  Probing: "fallback.probe",
  Stalled: "fallback.stall",
  Fresh: "fallback.fresh",
  Malformed: "fallback.malformed",
  Stopping: "fallback.stop",
  Sharing: "fallback.health.sharing"
}
