import * as Failure from "@fallback/core/Failure"
import * as Place from "@fallback/core/Place"
import * as AiError from "effect/ai/AiError"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

import { classify } from "@fallback/core/Classify"
import type * as AiFailure from "../AiFailure.js"

/** Header names whose values are credentials, whatever they look like. */
const credentials = /^(?:authorization|proxy-authorization|x-api-key|api-key|x-goog-api-key|cookie|set-cookie)$/i

/** Headers as a reason carries them: credentials replaced, anything else masked, names lower-cased. */
export const maskHeaders = (headers: Readonly<Record<string, unknown>>): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value !== "string") continue
    out[name.toLowerCase()] = credentials.test(name) ? "***" : Failure.said(value)
  }
  return out
}

/** What an HTTP refusal carried, as a reason's `http` field holds it (masked). */
export interface Http {
  readonly status: number
  readonly headers: Readonly<Record<string, unknown>>
  readonly body?: string | undefined
  /** Where the request went (without its query), said in the reason's description. */
  readonly url?: string | undefined
}

const httpOf = (http: Http | undefined) =>
  http === undefined ? {} : {
    http: {
      response: { status: http.status, headers: maskHeaders(http.headers) },
      ...(http.body === undefined ? {} : { body: Failure.said(http.body) })
    }
  }

const encodeFailure = Schema.encodeSync(Failure.Failure)
const decodeFailure = Schema.decodeUnknownOption(Failure.Failure)
const encodePlace = Schema.encodeSync(Place.Place)

/**
 * An encoded failure as metadata (JSON) holds it: no undefined fields, and a number JSON cannot
 * hold (an endless duration) as its text, its field named in `~numbers`.
 */
const defined = (value: unknown): unknown => {
  if (typeof value !== "object" || value === null) return value
  const out: Record<string, unknown> = {}
  const numbers: Array<string> = []
  for (const [name, field] of Object.entries(value)) {
    if (field === undefined) continue
    if (typeof field === "number" && !Number.isFinite(field)) {
      numbers.push(name)
      out[name] = String(field)
    } else out[name] = defined(field)
  }
  if (numbers.length > 0) out["~numbers"] = numbers
  return out
}

const revived = (encoded: Record<string, unknown>): Record<string, unknown> => {
  const { "~numbers": numbers, ...out } = encoded
  if (Array.isArray(numbers)) { for (const name of numbers) out[name] = Number(out[name]) }
  return out
}

/** The typed note a reason made from a failure carries: its kind, its place, and the failure itself. */
const noteOf = (failure: Failure.Failure): AiFailure.Failed => ({
  kind: failure._tag,
  place: Place.format(failure.place),
  failure: defined(encodeFailure(failure)) as AiFailure.Failed["failure"]
})

/** @internal */
export const toReason = (failure: Failure.Failure, http?: Http): AiError.AiErrorReason => {
  const metadata = { fallback: noteOf(failure) }
  const said = http?.url === undefined ? failure.said as string : `${failure.said} (POST ${urlOf(http.url)})`
  const more = { metadata, ...httpOf(http) }
  switch (failure._tag) {
    case "RateLimited":
      return new AiError.RateLimitError({
        ...more,
        ...(failure.retryAfter === undefined ? {} : { retryAfter: failure.retryAfter })
      })
    case "QuotaExhausted":
      return new AiError.QuotaExhaustedError({
        ...more,
        ...(failure.until === undefined ? {} : { resetAt: failure.until })
      })
    case "AuthRefused":
      return new AiError.AuthenticationError({
        ...more,
        kind: failure.status === 401 ? "InvalidKey" : failure.status === 403 ? "InsufficientPermissions" : "Unknown",
        description: said
      })
    case "ModelNotFound":
      return new AiError.InvalidRequestError({ ...more, parameter: "model", constraint: "exists", description: said })
    case "ContextTooLong":
      return new AiError.InvalidRequestError({
        ...more,
        parameter: "prompt",
        constraint: "context-window",
        description: said
      })
    case "ArgumentsRefused":
      return new AiError.InvalidRequestError({
        ...more,
        parameter: failure.argument ?? "arguments",
        constraint: "accepted-by-cli",
        description: said
      })
    case "Refused":
      return new AiError.ContentPolicyError({ ...more, description: said })
    case "ConnectionLost":
      // a network reason carries no metadata: what it said and where are all a lost connection holds
      return new AiError.NetworkError({
        reason: "TransportError",
        method: "POST",
        url: Place.format(failure.place),
        description: said
      })
    case "Timeout":
    case "Unresponsive":
    case "StoreBusy":
    case "Killed":
    case "NotInstalled":
      return new AiError.InternalProviderError({ ...more, description: said })
    case "Unknown":
      return new AiError.UnknownError({ ...more, description: said })
  }
}

/** The failure a reason carries (one made by {@link toReason}), judged again at `place`. */
const carried = (reason: AiError.AiErrorReason, place: Place.Place): Failure.Failure | undefined => {
  const note = (reason as { readonly metadata?: { readonly fallback?: AiFailure.Failed } }).metadata?.fallback
  if (note === undefined || typeof note !== "object" || note === null) return undefined
  const encoded = note.failure as Record<string, unknown> | undefined
  if (encoded === undefined) return undefined
  return Option.getOrUndefined(decodeFailure({ ...revived(encoded), place: encodePlace(place) }))
}

const statusOf = (reason: AiError.AiErrorReason): number | undefined =>
  "http" in reason ? reason.http?.response?.status : undefined

const describedBy = (reason: AiError.AiErrorReason): string => {
  const description = "description" in reason ? reason.description : undefined
  return typeof description === "string" ? description : reason._tag
}

/**
 * What the provider's own HTTP refusal a reason carries says, by the one classifier every backend
 * uses (its status, its rate-limit headers, its body): a foreign provider's 404 is ModelNotFound,
 * its 529 RateLimited, whichever generic reason it chose. The reason's own description is never read.
 */
const byHttp = (reason: AiError.AiErrorReason, place: Place.Place, now: number): Failure.Failure | undefined => {
  const http = "http" in reason ? reason.http : undefined
  if (http?.response === undefined) return undefined
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(http.response.headers)) {
    if (typeof value === "string") headers[name.toLowerCase()] = value
  }
  return classify(
    { status: http.response.status, headers, body: http.body ?? "" },
    place,
    now
  )
}

/** @internal */
export const fromReason = (reason: AiError.AiErrorReason, place: Place.Place, now: number): Failure.Failure => {
  const known = carried(reason, place)
  if (known !== undefined) return known
  // what the failure says, written only where the reason itself (not its HTTP refusal) is read
  let written: Failure.Said | undefined
  const said = (): Failure.Said => written ??= Failure.said(describedBy(reason))
  switch (reason._tag) {
    case "RateLimitError": {
      // a 429 is too many requests or a spent quota: what it carries can tell them apart
      const read = byHttp(reason, place, now)
      if (read?._tag === "QuotaExhausted") return read
      if (read?._tag === "RateLimited" && reason.retryAfter === undefined) return read
      return new Failure.RateLimited({
        place,
        said: read?.said ?? said(),
        ...(reason.retryAfter === undefined ? {} : { retryAfter: reason.retryAfter })
      })
    }
    case "QuotaExhaustedError": {
      const read = byHttp(reason, place, now)
      if (read?._tag === "QuotaExhausted" && reason.resetAt === undefined) return read
      return new Failure.QuotaExhausted({
        place,
        said: said(),
        ...(reason.resetAt === undefined ? {} : { until: reason.resetAt })
      })
    }
    case "AuthenticationError": {
      const status = statusOf(reason) ??
        (reason.kind === "InsufficientPermissions" ? 403 : reason.kind === "Unknown" || reason.kind === "MissingKey"
          ? undefined
          : 401)
      return new Failure.AuthRefused({ place, said: said(), ...(status === undefined ? {} : { status }) })
    }
    case "ContentPolicyError":
      return new Failure.Refused({ place, said: said() })
    case "InvalidRequestError":
      if (reason.parameter === "model") return new Failure.ModelNotFound({ place, said: said() })
      if (reason.constraint === "context-window") return new Failure.ContextTooLong({ place, said: said() })
      if (reason.constraint === "accepted-by-cli") {
        return new Failure.ArgumentsRefused({
          place,
          said: said(),
          ...(reason.parameter === undefined || reason.parameter === "arguments" ? {} : { argument: reason.parameter })
        })
      }
      return byHttp(reason, place, now) ?? new Failure.Unknown({ place, said: said() })
    case "NetworkError":
      return reason.reason === "TransportError"
        ? new Failure.ConnectionLost({ place, said: said() })
        : new Failure.Unknown({ place, said: said() })
    case "InternalProviderError":
    case "UnknownError":
    case "InvalidResponseError":
      return byHttp(reason, place, now) ?? new Failure.Unknown({ place, said: said() })
    default:
      return new Failure.Unknown({ place, said: said() })
  }
}

/** @internal */
export const toFailure = (error: AiError.AiError, place: Place.Place, now: number): Failure.Failure =>
  fromReason(error.reason, place, now)

/**
 * A finished answer that is a refusal: the provider's content filter stopped it
 * (`finishReason: "content-filter"`, a 200 with nothing to hand over). None for any other reason.
 *
 * @internal
 */
export const filtered = (reason: string, place: Place.Place): Failure.Failure | undefined =>
  reason === "content-filter"
    ? new Failure.Refused({
      place,
      said: Failure.said("the provider's content filter stopped the answer (finish reason: content-filter)")
    })
    : undefined

/** A URL without its query (where some providers take a key) or credentials. */
export const urlOf = (url: string): string => {
  try {
    const parsed = new URL(url)
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`
  } catch {
    return Failure.said(url)
  }
}

const maskedReason = (reason: AiError.AiErrorReason): AiError.AiErrorReason => {
  const fields: Record<string, unknown> = { ...reason }
  if (typeof fields.description === "string") fields.description = Failure.said(fields.description)
  if (typeof fields.url === "string") fields.url = urlOf(fields.url)
  const http = fields.http as { response?: { status: number; headers: Record<string, unknown> }; body?: string }
  if (http !== undefined) {
    fields.http = {
      ...(http.response === undefined ? {} : {
        response: { status: http.response.status, headers: maskHeaders(http.response.headers) }
      }),
      ...(http.body === undefined ? {} : { body: Failure.said(http.body) })
    }
  }
  delete fields.cause
  const Same = reason.constructor as new(fields: Record<string, unknown>) => AiError.AiErrorReason
  return new Same(fields)
}

/** @internal */
export const masked = (error: AiError.AiError): AiError.AiError =>
  AiError.make({ module: error.module, method: error.method, reason: maskedReason(error.reason) })

/**
 * What a chain that gave up fails with: the place's own reason (masked) where it had one, else
 * the failure as a reason, with the failure noted on it either way.
 *
 * @internal
 */
export const gaveUp = (
  method: string,
  failure: Failure.Failure,
  own: AiError.AiError | undefined,
  cut?: Cut | undefined
): AiError.AiError => {
  const note: AiFailure.Failed = cut === undefined ? noteOf(failure) : { ...noteOf(failure), ...cutNote(cut) }
  const reason = (own === undefined ? toReason(failure) : maskedReason(own.reason)) as
    & AiError.AiErrorReason
    & { metadata?: Record<string, unknown> }
  const module = own?.module ?? "FallbackAi"
  const at = own?.method ?? method
  // a network reason (and a tool's) has no metadata to note the failure on; a cut answer's note
  // (what was delivered) must reach the caller, so it goes on an unknown reason then
  if (!("metadata" in reason)) {
    if (cut === undefined) return AiError.make({ module, method: at, reason })
    return AiError.make({
      module,
      method: at,
      reason: new AiError.UnknownError({ description: cut.description, metadata: { fallback: note } })
    })
  }
  const noted = new (reason.constructor as new(fields: Record<string, unknown>) => AiError.AiErrorReason)({
    ...reason,
    metadata: { ...reason.metadata, fallback: note }
  })
  return AiError.make({ module, method: at, reason: noted })
}

/**
 * A streamed answer cut after content reached the caller, as a chain fails with it: what was
 * delivered, how the next place failed to continue it, and the words for it.
 *
 * @internal
 */
export interface Cut {
  readonly delivered: string
  readonly continuation?: Failure.Failure | undefined
  readonly description: string
}

const cutNote = (cut: Cut): Pick<AiFailure.Failed, "delivered" | "continuation"> => ({
  delivered: cut.delivered,
  ...(cut.continuation === undefined ? {} : { continuation: noteOf(cut.continuation) })
})
