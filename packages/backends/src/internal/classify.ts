import * as DateTime from "effect/DateTime"
import * as Duration from "effect/Duration"
import { Failure } from "@fallback/core"
import type { Place } from "@fallback/core"

type Make = (place: Place.Place, said: Failure.Said) => Failure.Failure

const rateLimited: Make = (place, said) => {
  const wait = retryAfterIn(said)
  return new Failure.RateLimited({ place, said, ...(wait === undefined ? {} : { retryAfter: Duration.seconds(wait) }) })
}
const quota: Make = (place, said) => new Failure.QuotaExhausted({ place, said })
const auth: Make = (place, said) => new Failure.AuthRefused({ place, said })
const model: Make = (place, said) => new Failure.ModelNotFound({ place, said })
const store: Make = (place, said) => new Failure.StoreBusy({ place, said })
const connection: Make = (place, said) => new Failure.ConnectionLost({ place, said })
const context: Make = (place, said) => new Failure.ContextTooLong({ place, said })
const unresponsive: Make = (place, said) => new Failure.Unresponsive({ place, said })
const unknown: Make = (place, said) => new Failure.Unknown({ place, said })

const quotaWords =
  /insufficient[_ ]quota|exceeded your current quota|exhausted your (?:daily )?quota|daily quota|quota exceeded|billing|credit balance|out of credits|payment required|spending limit/i
const contextWords =
  /context[_ ]length|context window|context_length_exceeded|prompt is too long|too many tokens|maximum context|input is too long|exceeds? the (?:context|token)|exceeds the maximum number of tokens|input token count|token limit/i

/** What an error a CLI reported says, in words, ordered so the narrower kinds are tried first. */
const wordRules: ReadonlyArray<readonly [RegExp, Make]> = [
  [/database is locked|SQLITE_BUSY/i, store],
  [contextWords, context],
  [quotaWords, quota],
  [/rate[_ -]?limit|too many requests|resource[_ ]exhausted|resource has been exhausted|overloaded|high demand|over capacity/i, rateLimited],
  [
    /unauthori[sz]ed|authentication|invalid[_ ](?:api[_ ]?key|x-api-key|token)|api key (?:is )?not valid|permission[_ ]denied|forbidden|not entitled|unauthenticated|invalid_request_error.*key/i,
    auth
  ],
  [/model.{0,60}(?:not found|does not exist|not exist|is not supported|unknown)|not_found_error|\bNOT_FOUND\b/i, model],
  [
    /ECONNRESET|EPIPE|ECONNREFUSED|socket hang up|connection (?:reset|refused|closed|error|lost)|fetch failed|network error|error sending request|stream (?:disconnected|closed|ended|error)|premature close|other side closed|terminated|bad gateway|closed unexpectedly|cannot connect to api|UND_ERR/i,
    connection
  ],
  [/idle timeout|timed out|timeout|ETIMEDOUT/i, unresponsive]
]

/**
 * The failure an error message names, or none when its words say nothing known. Only ever given
 * what the CLI reported as an error, never the answer's own text.
 *
 * @internal
 */
export const byWords = (message: string, place: Place.Place): Failure.Failure | undefined => {
  const rule = wordRules.find(([words]) => words.test(message))
  return rule === undefined ? undefined : rule[1](place, Failure.said(message))
}

/**
 * The wait an error message asks for in its own words ("retry after 30s", "retry-after: 30").
 *
 * @internal
 */
export const retryAfterIn = (message: string): number | undefined => {
  const found = /retry[- ]after:?\s*(\d+(?:\.\d+)?)\s*s?\b/i.exec(message) ?? /try again in (\d+(?:\.\d+)?)\s*s\b/i.exec(message)
  return found === null ? undefined : Number(found[1])
}

/**
 * The failure an HTTP status names, with the message that came with it; a retry-after in
 * seconds, when one was sent, goes into `RateLimited.retryAfter`.
 *
 * @internal
 */
export const byStatus = (
  status: number,
  message: string,
  place: Place.Place,
  retryAfter?: number
): Failure.Failure => {
  const said = Failure.said(message)
  const wait = retryAfter ?? retryAfterIn(message)
  switch (status) {
    case 401:
    case 403:
      return auth(place, said)
    case 402:
      return quota(place, said)
    case 404:
      return model(place, said)
    case 413:
      return context(place, said)
    case 429:
    case 503:
    case 529:
      return quotaWords.test(message)
        ? quota(place, said)
        : new Failure.RateLimited({
          place,
          said,
          ...(wait === undefined ? {} : { retryAfter: Duration.seconds(wait) })
        })
    case 502:
    case 504:
      return connection(place, said)
    case 400:
      return contextWords.test(message) ? context(place, said) : quotaWords.test(message) ? quota(place, said) : byWords(message, place) ?? unknown(place, said)
    default:
      return unknown(place, said)
  }
}

/**
 * The failure an error message names, or `Unknown` saying it.
 *
 * @internal
 */
export const byMessage = (message: string, place: Place.Place): Failure.Failure =>
  byWords(message, place) ?? unknown(place, Failure.said(message))

/**
 * A process that died by a signal.
 *
 * @internal
 */
export const killed = (signal: string, place: Place.Place, said: string): Failure.Failure =>
  new Failure.Killed({ place, signal, said: Failure.said(said) })

/**
 * `Unknown`, saying what happened.
 *
 * @internal
 */
export const other = (said: string, place: Place.Place): Failure.Failure => unknown(place, Failure.said(said))

/**
 * The last few lines of a stream, for a failure to quote: the end is where a CLI says what broke.
 *
 * @internal
 */
export const tail = (text: string, lines = 6): string =>
  text.trim().split("\n").filter((line) => line.trim().length > 0).slice(-lines).join("\n").slice(-800)

/** Go-style durations as OpenAI writes its reset headers (`1s`, `6m0s`, `20ms`), in millis. */
const spelled = (value: string): number | undefined => {
  const parts = [...value.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)]
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const
  return parts.length === 0
    ? undefined
    : parts.reduce((sum, [, amount, name]) => sum + Number(amount) * unit[name as keyof typeof unit], 0)
}

/**
 * When a spent quota comes back, from response headers a CLI passed on: the latest
 * `x-ratelimit-reset-*` after the response's own `date`, so judging stays a pure function of what
 * was recorded.
 *
 * @internal
 */
export const quotaUntil = (headers: Readonly<Record<string, unknown>> | undefined): DateTime.Utc | undefined => {
  const date = typeof headers?.date === "string" ? Date.parse(headers.date) : NaN
  if (headers === undefined || Number.isNaN(date)) return undefined
  const resets = Object.entries(headers).flatMap(([name, value]) => {
    const after = name.toLowerCase().startsWith("x-ratelimit-reset-") && typeof value === "string" ? spelled(value) : undefined
    return after === undefined ? [] : [after]
  })
  return resets.length === 0 ? undefined : DateTime.unsafeMake(date + Math.max(...resets))
}
