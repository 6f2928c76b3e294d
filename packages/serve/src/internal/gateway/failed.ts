import * as AiFailure from "@fallback/ai/AiFailure"
import type * as Failure from "@fallback/core/Failure"
import type * as Health from "@fallback/core/Health"
import type * as Place from "@fallback/core/Place"
import * as Secret from "@fallback/core/Secret"
import * as AiError from "effect/ai/AiError"
import * as DateTime from "effect/DateTime"
import * as Duration from "effect/Duration"
import * as Option from "effect/Option"

import type { Failed } from "../wire/dialect.js"

const statusOf: Record<Failure.Kind, Pick<Failed, "status" | "kind">> = {
  RateLimited: { status: 429, kind: "rate_limit" },
  QuotaExhausted: { status: 429, kind: "rate_limit" },
  AuthRefused: { status: 401, kind: "authentication" },
  ModelNotFound: { status: 404, kind: "not_found" },
  ContextTooLong: { status: 400, kind: "invalid_request" },
  ArgumentsRefused: { status: 400, kind: "invalid_request" },
  Refused: { status: 400, kind: "invalid_request" },
  Timeout: { status: 504, kind: "timeout" },
  Unresponsive: { status: 504, kind: "timeout" },
  ConnectionLost: { status: 502, kind: "api_error" },
  StoreBusy: { status: 503, kind: "overloaded" },
  Killed: { status: 502, kind: "api_error" },
  NotInstalled: { status: 500, kind: "api_error" },
  Unknown: { status: 502, kind: "api_error" }
}

const secondsOf = (millis: number): number => Math.max(1, Math.ceil(millis / 1000))

/** Seconds to wait that a reason says: a rate limit's `retryAfter`, a quota's reset. */
const waitOf = (reason: AiError.AiErrorReason, now: number): number | undefined => {
  if (reason._tag === "RateLimitError" && reason.retryAfter !== undefined) {
    return secondsOf(Duration.toMillis(reason.retryAfter))
  }
  if (reason._tag === "QuotaExhaustedError" && reason.resetAt !== undefined) {
    return secondsOf(DateTime.toEpochMillis(reason.resetAt) - now)
  }
  return undefined
}

/**
 * What a chain that gave up is to a client: its failure kind's status, its message masked, and
 * the wait its reason says.
 *
 * @internal
 */
export const failedOf = (error: unknown, now: number): Failed => {
  if (!AiError.isAiError(error)) {
    return { status: 500, kind: "api_error", message: Secret.mask(`the gateway failed: ${String(error)}`) }
  }
  const kind = AiFailure.kindOf(error)
  const mapped = kind === undefined ? statusOf.Unknown : statusOf[kind]
  const permission = error.reason._tag === "AuthenticationError" && error.reason.kind === "InsufficientPermissions"
  const retryAfter = waitOf(error.reason, now)
  return {
    ...(permission ? { status: 403, kind: "permission" } : mapped),
    message: Secret.mask(error.message),
    ...(retryAfter === undefined ? {} : { retryAfter })
  }
}

/**
 * When every place of a chain is cooling or parked: seconds to the soonest one's return, as
 * health holds them.
 *
 * @internal
 */
export const coolingFor = (
  snapshot: ReadonlyArray<Health.PlaceHealth>,
  places: ReadonlyArray<Place.Place>,
  now: number
): number | undefined => {
  let soonest = Number.POSITIVE_INFINITY
  for (const place of places) {
    const held = snapshot.find((entry) => String(entry.place) === String(place))
    const until = held === undefined
      ? undefined
      : Math.max(Option.getOrElse(held.parkedUntil, () => 0), Option.getOrElse(held.coolingUntil, () => 0))
    if (until === undefined || until <= now) return undefined
    soonest = Math.min(soonest, until)
  }
  return places.length === 0 ? undefined : secondsOf(soonest - now)
}

/** The failure a client sees when every place is cooling: its wire's rate-limit error. @internal */
export const allCooling = (failed: Failed, seconds: number): Failed => ({
  status: 429,
  kind: "rate_limit",
  message: `every place of this chain is cooling down; the soonest is back in ${seconds}s (${failed.message})`,
  retryAfter: seconds
})
