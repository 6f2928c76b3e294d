/**
 * Failure kinds and `effect/ai`'s `AiError` reasons, each way. A failure becomes the reason an
 * Effect 4 program catches with `Effect.catchReason("AiError", "RateLimitError", …)`: RateLimited
 * is `RateLimitError` (its wait as `retryAfter`), QuotaExhausted `QuotaExhaustedError` (`resetAt`),
 * AuthRefused `AuthenticationError` (401 `InvalidKey`, 403 `InsufficientPermissions`),
 * ModelNotFound and ContextTooLong `InvalidRequestError` (`parameter: "model"` /
 * `constraint: "context-window"`), Refused `ContentPolicyError`, ArgumentsRefused
 * `InvalidRequestError` (`constraint: "accepted-by-cli"`), ConnectionLost `NetworkError` (a `TransportError`), Timeout,
 * Unresponsive, StoreBusy, Killed and NotInstalled `InternalProviderError`, Unknown
 * `UnknownError`; and every such reason but the network one (which has no metadata) says its kind
 * in `metadata.fallback` ({@link Failed}), typed ({@link kindOf} reads either).
 *
 * The other way, a reason is read by what it is, not by its words: the note where it has one (the
 * failure exactly), else its tag and fields, and for a generic reason (`InvalidRequestError`,
 * `InternalProviderError`, `UnknownError`) the HTTP status and headers it carries, read by the one
 * classifier every backend uses. Secrets are masked, as everywhere.
 *
 * @since 0.1.0
 */
import type * as Failure from "@fallback/core/Failure"
import type * as Place from "@fallback/core/Place"
import type * as AiError from "effect/ai/AiError"

import * as internal from "./internal/aiFailure.js"

/**
 * The note on a reason that a failure kind became: the kind, the place (`CLI[@ACCOUNT]/MODEL`) it
 * happened at, and the failure as its schema encodes it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Failed {
  readonly kind: Failure.Kind
  readonly place: string
  readonly failure: { readonly _tag: Failure.Kind; readonly [field: string]: unknown }
  /**
   * A streamed answer that failed after content reached the caller: the text delivered before it
   * failed (nothing of it is replayed, and no truncated answer passes for a whole one).
   */
  readonly delivered?: string | undefined
  /** How the next place failed to continue that answer, when it was asked to (the note of that failure). */
  readonly continuation?: Omit<Failed, "delivered" | "continuation"> | undefined
}

declare module "effect/ai/AiError" {
  interface RateLimitErrorMetadata {
    readonly fallback?: Failed | undefined
  }
  interface QuotaExhaustedErrorMetadata {
    readonly fallback?: Failed | undefined
  }
  interface AuthenticationErrorMetadata {
    readonly fallback?: Failed | undefined
  }
  interface ContentPolicyErrorMetadata {
    readonly fallback?: Failed | undefined
  }
  interface InvalidRequestErrorMetadata {
    readonly fallback?: Failed | undefined
  }
  interface InternalProviderErrorMetadata {
    readonly fallback?: Failed | undefined
  }
  interface UnknownErrorMetadata {
    readonly fallback?: Failed | undefined
  }
}

/**
 * The failure an `AiError` at a place is, judged at `now` (epoch milliseconds): its reason's.
 *
 * @since 0.1.0
 * @category utils
 */
export const toFailure: (error: AiError.AiError, place: Place.Place, now: number) => Failure.Failure =
  internal.toFailure

/**
 * The failure a reason is at a place, judged at `now` (epoch milliseconds).
 *
 * @since 0.1.0
 * @category utils
 */
export const fromReason: (reason: AiError.AiErrorReason, place: Place.Place, now: number) => Failure.Failure =
  internal.fromReason

/**
 * The reason a failure is, with the failure noted in its `metadata.fallback`; `http` is what the
 * refusal it was read from carried (its headers and body masked).
 *
 * @since 0.1.0
 * @category utils
 */
export const toReason: (
  failure: Failure.Failure,
  http?: { readonly status: number; readonly headers: Readonly<Record<string, unknown>>; readonly body?: string }
) => AiError.AiErrorReason = internal.toReason

/**
 * The kind an `AiError` says it is, where a failure was noted on it (every error a chain or one of
 * fallback's providers fails with is).
 *
 * @since 0.1.0
 * @category utils
 */
export const kindOf = (error: AiError.AiError): Failure.Kind | undefined =>
  error.reason._tag === "NetworkError" && error.reason.reason === "TransportError"
    ? "ConnectionLost"
    : (error.reason as { readonly metadata?: { readonly fallback?: Failed } }).metadata?.fallback?.kind

/**
 * The same error with its credentials masked: response headers, the URL's query, and anything in
 * its body or description that looks like a key.
 *
 * @since 0.1.0
 * @category utils
 */
export const masked: (error: AiError.AiError) => AiError.AiError = internal.masked
