/**
 * `@effect/ai` errors as failure kinds, through the same classifier the HTTP providers use: an
 * `HttpResponseError` by its status, its rate-limit headers (`retry-after` and the vendors' reset
 * headers become `RateLimited.retryAfter` and `QuotaExhausted.until`) and its body's words (a
 * content-policy refusal is `Refused`, a 408 or 504 the provider's own `Timeout`); an
 * `HttpRequestError` that never reached the provider is `ConnectionLost` (`Timeout` when its
 * transport timed out); malformed input or output
 * is `Unknown`; an `UnknownError` by its words. Secrets are masked, as everywhere.
 *
 * @since 0.1.0
 */
import type * as AiError from "@effect/ai/AiError"
import type { Failure, Place } from "@fallback/core"

import * as internal from "./internal/aiFailure.js"

/**
 * The failure an `AiError` at a place is, judged at `now` (epoch milliseconds).
 *
 * @since 0.1.0
 * @category utils
 */
export const toFailure: (error: AiError.AiError, place: Place.Place, now: number) => Failure.Failure =
  internal.toFailure

/**
 * The same error with its credentials masked: request and response headers, the URL's query, and
 * anything in its body or description that looks like a key.
 *
 * @since 0.1.0
 * @category utils
 */
export const masked: (error: AiError.AiError) => AiError.AiError = internal.masked
