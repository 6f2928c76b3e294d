import * as AiError from "@effect/ai/AiError"
import { HttpProvider } from "@fallback/backends"
import { Failure, type Place } from "@fallback/core"
import * as Duration from "effect/Duration"

/** Header names whose values are credentials, whatever they look like. */
const credentials = /^(?:authorization|proxy-authorization|x-api-key|api-key|x-goog-api-key|cookie|set-cookie)$/i

const maskHeaders = (headers: Readonly<Record<string, string>>): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) out[name] = credentials.test(name) ? "***" : Failure.said(value)
  return out
}

const timedOut = /\b(?:ETIMEDOUT|ESOCKETTIMEDOUT|timed out|timeout)\b/i

const words = (error: AiError.AiError): string =>
  error._tag === "HttpResponseError" ? error.body ?? error.description ?? "" : error.description ?? ""

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

/** @internal */
export const toFailure = (error: AiError.AiError, place: Place.Place, now: number): Failure.Failure => {
  switch (error._tag) {
    case "HttpResponseError":
      return error.reason === "StatusCode"
        ? HttpProvider.classify(
          { status: error.response.status, headers: lowerCased(error.response.headers), body: words(error) },
          place,
          now
        )
        : new Failure.Unknown({
          place,
          said: Failure.said(`${error.response.status}: ${error.reason} ${words(error)}`.trim())
        })
    case "HttpRequestError": {
      const said = Failure.said(
        `could not reach ${urlOf(error.request.url)}${error.description ? `: ${error.description}` : ""}`
      )
      // A transport that timed out (ETIMEDOUT, "timed out") is the provider's own timeout, not a lost socket.
      if (error.reason === "Transport" && timedOut.test(error.description ?? "")) {
        return new Failure.Timeout({ place, said, phase: "provider", after: Duration.zero })
      }
      return error.reason === "Transport"
        ? new Failure.ConnectionLost({ place, said })
        : new Failure.Unknown({
          place,
          said: Failure.said(`${error.reason}: ${error.description ?? "the request could not be made"}`)
        })
    }
    case "MalformedOutput":
    case "MalformedInput":
      return new Failure.Unknown({
        place,
        said: Failure.said(`${error._tag}: ${error.description ?? "no description"}`)
      })
    case "UnknownError": {
      const found = HttpProvider.classify({ headers: {}, body: words(error) }, place, now)
      return found._tag === "Unknown"
        ? new Failure.Unknown({ place, said: Failure.said(words(error) || "UnknownError") })
        : found
    }
  }
}

const lowerCased = (headers: Readonly<Record<string, string>>): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = value
  return out
}

/** A URL without its query (where some providers take a key) or credentials. */
const urlOf = (url: string): string => {
  try {
    const parsed = new URL(url)
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`
  } catch {
    return Failure.said(url)
  }
}

/** A request as an error carries it, with no credentials in its URL, query or headers. */
const requestOf = (request: AiError.HttpRequestError["request"]): AiError.HttpRequestError["request"] => ({
  ...request,
  url: urlOf(request.url),
  urlParams: [],
  headers: maskHeaders(request.headers)
})

/** @internal */
export const masked = (error: AiError.AiError): AiError.AiError => {
  switch (error._tag) {
    case "HttpRequestError":
      return new AiError.HttpRequestError({
        module: error.module,
        method: error.method,
        reason: error.reason,
        request: requestOf(error.request),
        ...(error.description === undefined ? {} : { description: Failure.said(error.description) })
      }, { disableValidation: true })
    case "HttpResponseError":
      return new AiError.HttpResponseError({
        module: error.module,
        method: error.method,
        reason: error.reason,
        request: requestOf(error.request),
        response: { status: error.response.status, headers: maskHeaders(error.response.headers) },
        ...(error.body === undefined ? {} : { body: Failure.said(error.body) }),
        ...(error.description === undefined ? {} : { description: Failure.said(error.description) })
      }, { disableValidation: true })
    case "MalformedOutput":
      return new AiError.MalformedOutput({
        module: error.module,
        method: error.method,
        ...(error.description === undefined ? {} : { description: Failure.said(error.description) }),
        ...(error.cause === undefined ? {} : { cause: error.cause })
      })
    case "MalformedInput":
    case "UnknownError": {
      const Same = error._tag === "MalformedInput" ? AiError.MalformedInput : AiError.UnknownError
      return new Same({
        module: error.module,
        method: error.method,
        ...(error.description === undefined ? {} : { description: Failure.said(error.description) })
      })
    }
  }
}
