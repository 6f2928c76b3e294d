import * as DateTime from "effect/DateTime"
import * as Duration from "effect/Duration"
import * as Option from "effect/Option"
import type * as Classify from "../Classify.js"
import * as Failure from "../Failure.js"
import type { Place } from "../Place.js"
import { hinted, spelled, waitAsked } from "./waits.js"

const unknown = (place: Place, said: Failure.Said): Failure.Failure => new Failure.Unknown({ place, said })

// Each kind's words, where providers and the CLIs that wrap them write them: their prose, and the
// vendors' error types and codes (`insufficient_quota`, `authentication_error`, …).
// A usage error, as the CLIs' argument parsers write it: commander (claude), clap (codex), yargs
// (gemini, opencode), and claude's refusal to skip permissions as root.
const argumentsWords =
  /\berror: (?:unknown option|option '[^']*' argument|invalid value '|unexpected argument '|too many arguments|missing required argument|required option|the argument '[^']*' cannot be used|a value is required for)|Invalid values?:\s+Argument:|\bUnknown arguments?: |Missing required arguments?: |Not enough non-option arguments|cannot be used with root/i
// A prompt refused by the provider's content policy: OpenAI's codes, Azure's content filter, a refusal.
const refusedWords =
  /content_policy_violation|content[_ ]filter|ResponsibleAIPolicyViolation|content management policy|rejected as a result of our safety system|\brefusal\b/i
const storeWords = /database is locked|SQLITE_BUSY|Failed query:|Failed to execute statement/i
const contextWords =
  /context[_ ]length|context window|context size|exceed_context_size|prompt is too long|too many tokens|maximum context|input is too long|exceeds? the (?:context|token)|exceeds the maximum number of tokens|input token count|token limit/i
const quotaWords =
  /insufficient[_ ]quota|exceeded your current quota|exhausted your (?:daily )?quota|daily quota|quota exceeded|billing_error|billing hard limit|enforced_spend_limit|credit balance|out of credits|payment required|spend(?:ing)? limit/i
const overloadWords = /overloaded|high demand|(?:over|at) capacity/i
const rateWords = /rate[_ -]?limit|too many requests|resource[_ ]exhausted|resource has been exhausted/i
const tooManyWords = new RegExp(`${rateWords.source}|${overloadWords.source}`, "i")
const authWords =
  /unauthori[sz]ed|authentication|permission[_ ]error|invalid[_ ](?:api[_ ]?key|x-api-key|token)|invalid x-api-key|incorrect api key|api key (?:is )?not valid|permission[_ ]denied|forbidden|not entitled|unauthenticated|invalid_request_error.*key/i
const modelWords =
  /model.{0,60}(?:not found|does not exist|not exist|is not supported|unknown)|model_not_found|not_found_error|\bNOT_FOUND\b/i
// A timer of the provider's or the CLI's own ran out; not "idle timeout" (a stream gone quiet),
// nor a header's "timeout=5".
const timeoutWords =
  /\b(?:ETIMEDOUT|ESOCKETTIMEDOUT|DEADLINE_EXCEEDED|deadline exceeded|gateway time-?out)\b|(?<!idle )\b(?:timed out|timeout)\b(?!=)/i
// Word boundaries: "upstream error" is not a stream that broke, and "terminated" inside a word is not one either.
const connectionWords =
  /\b(?:ECONNRESET|EPIPE|ECONNREFUSED|socket hang up|connection (?:reset|refused|closed|error|lost)|fetch failed|network error|error sending request|stream (?:disconnected|closed|ended|error)|premature close|other side closed|terminated|bad gateway|closed unexpectedly|cannot connect to api|UND_ERR)/i
const idleWords = /\bidle timeout\b/i

/**
 * The one table of kinds, for every backend (the CLIs, the HTTP providers): the statuses that
 * decide a kind by themselves, and its words. Read in order where only words decide, so the
 * narrower kinds are tried first.
 */
const table: ReadonlyArray<
  { readonly kind: Failure.Kind; readonly words: RegExp; readonly statuses: ReadonlyArray<number> }
> = [
  { kind: "ArgumentsRefused", words: argumentsWords, statuses: [] },
  { kind: "Refused", words: refusedWords, statuses: [] },
  { kind: "StoreBusy", words: storeWords, statuses: [] },
  { kind: "ContextTooLong", words: contextWords, statuses: [413] },
  { kind: "QuotaExhausted", words: quotaWords, statuses: [402] },
  { kind: "RateLimited", words: tooManyWords, statuses: [429, 503, 529] },
  { kind: "AuthRefused", words: authWords, statuses: [401, 403] },
  { kind: "ModelNotFound", words: modelWords, statuses: [404] },
  { kind: "Timeout", words: timeoutWords, statuses: [408, 504] },
  { kind: "ConnectionLost", words: connectionWords, statuses: [502] },
  { kind: "Unresponsive", words: idleWords, statuses: [] }
]

/**
 * Words that say more than any status: a usage error, a prompt refused by policy, a 429 or 403
 * that is a spent quota, a 400 whose prompt is too long.
 */
const refining: ReadonlyArray<Failure.Kind> = [
  "ArgumentsRefused",
  "Refused",
  "StoreBusy",
  "ContextTooLong",
  "QuotaExhausted"
]

/**
 * The argument a usage error names, as it was given: `--permission-mode yolo`, `--sandbox
 * acceptEdits`, `--no-such-flag`; none where its words do not say.
 *
 * @internal
 */
export const refusedArgument = (words: string): string | undefined => {
  const flag = (spelled: string) => spelled.split(/[ =<]/)[0]!
  const commander = /option '([^']+)' argument '([^']*)' is invalid/.exec(words)
  if (commander !== null) return `${flag(commander[1]!)} ${commander[2]}`
  const clap = /invalid value '([^']*)' for '([^']+)'/.exec(words)
  if (clap !== null) return `${flag(clap[2]!)} ${clap[1]}`
  const yargs = /Argument: ([\w-]+), Given: "([^"]*)"/.exec(words)
  if (yargs !== null) return `--${yargs[1]} ${yargs[2]}`
  const named =
    /(?:unknown option|unexpected argument|missing required argument|required option|the argument|a value is required for) '([^']+)'/i
      .exec(words) ?? /Unknown arguments?: ([^\n]+)/i.exec(words) ?? /(--[\w-]+) cannot be used with root/.exec(words)
  return named === null ? undefined : flag(named[1]!.trim())
}

/**
 * The kind a report names: words that refine any status first, then a status that decides by
 * itself, then the words in the table's order; none when nothing is known.
 *
 * @internal
 */
export const kindOf = (status: number | undefined, words: string): Failure.Kind | undefined => {
  const refined = table.find((rule) => refining.includes(rule.kind) && rule.words.test(words))
  if (refined !== undefined) return refined.kind
  const decided = status === undefined ? undefined : table.find((rule) => rule.statuses.includes(status))
  return (decided ?? table.find((rule) => rule.words.test(words)))?.kind
}

/**
 * A failure's fields here are made from a place the engine parsed and words `Failure.said` shaped,
 * so they are not checked again: checking them cost about a sixth of a failover.
 */
const unchecked = { disableChecks: true } as const

const errors = Error as unknown as { stackTraceLimit: number }

/**
 * `make`'s failure built without the call stack an Error records: no one reads a classified
 * failure's stack (it says where the classifier ran, not where the place failed), and recording
 * it was about a sixth of a failover.
 */
const stackless = <A>(make: () => A): A => {
  const limit = errors.stackTraceLimit
  errors.stackTraceLimit = 0
  try {
    return make()
  } finally {
    errors.stackTraceLimit = limit
  }
}

/** @internal */
export const judge = (report: Classify.Report, place: Place): Failure.Failure => stackless(() => judged(report, place))

const judged = (report: Classify.Report, place: Place): Failure.Failure => {
  const said = Failure.said(report.said)
  const wait = hinted(
    report.retryAfter ?? (() => {
      const seconds = retryAfterIn(report.words)
      return seconds === undefined ? undefined : seconds * 1000
    })()
  )
  const until = report.until === undefined ? undefined : Option.getOrUndefined(DateTime.make(report.until))
  switch (kindOf(report.status, report.words)) {
    case "ArgumentsRefused": {
      const argument = refusedArgument(report.words)
      return new Failure.ArgumentsRefused({ place, said, ...(argument === undefined ? {} : { argument }) }, unchecked)
    }
    case "Refused":
      return new Failure.Refused({ place, said }, unchecked)
    case "StoreBusy":
      return new Failure.StoreBusy({ place, said }, unchecked)
    case "ContextTooLong":
      return new Failure.ContextTooLong({ place, said }, unchecked)
    case "QuotaExhausted":
      return new Failure.QuotaExhausted({
        place,
        said,
        ...(until === undefined ? {} : { until })
      }, unchecked)
    case "RateLimited":
      return new Failure.RateLimited({
        place,
        said,
        ...(wait === undefined ? {} : { retryAfter: Duration.millis(wait) }),
        ...(report.status === 529 || overloadWords.test(report.words) ? { reason: "overloaded" as const } : {})
      }, unchecked)
    case "AuthRefused":
      return new Failure.AuthRefused(
        { place, said, ...(report.status === undefined ? {} : { status: report.status }) },
        unchecked
      )
    case "ModelNotFound":
      return new Failure.ModelNotFound({ place, said }, unchecked)
    case "Timeout":
      return new Failure.Timeout({ place, said, phase: "provider", after: Duration.zero }, unchecked)
    case "ConnectionLost":
      return new Failure.ConnectionLost({ place, said }, unchecked)
    case "Unresponsive":
      return new Failure.Unresponsive({ place, said }, unchecked)
    default:
      return new Failure.Unknown({ place, said }, unchecked)
  }
}

/**
 * The failure an error message names, or none when its words say nothing known. Only ever given
 * what the CLI reported as an error, never the answer's own text.
 *
 * @internal
 */
export const byWords = (message: string, place: Place): Failure.Failure | undefined =>
  kindOf(undefined, message) === undefined ? undefined : judge({ words: message, said: message }, place)

/**
 * The wait an error message asks for in its own words ("retry after 30s", "retry-after: 30").
 *
 * @internal
 */
export const retryAfterIn = (message: string): number | undefined => {
  const found = /retry[- ]after:?\s*(\d+(?:\.\d+)?)\s*s?\b/i.exec(message) ??
    /try again in (\d+(?:\.\d+)?)\s*s\b/i.exec(message)
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
  place: Place,
  retryAfter?: number
): Failure.Failure =>
  judge(
    { status, words: message, said: message, retryAfter: retryAfter === undefined ? undefined : retryAfter * 1000 },
    place
  )

/**
 * The failure an error message names, or `Unknown` saying it.
 *
 * @internal
 */
export const byMessage = (message: string, place: Place): Failure.Failure =>
  judge({ words: message, said: message }, place)

/**
 * A process that died by a signal.
 *
 * @internal
 */
export const killed = (signal: string, place: Place, said: string): Failure.Failure =>
  new Failure.Killed({ place, signal, said: Failure.said(said) })

/**
 * `Unknown`, saying what happened.
 *
 * @internal
 */
export const other = (said: string, place: Place): Failure.Failure => unknown(place, Failure.said(said))

/**
 * The last few lines of a stream, for a failure to quote: the end is where a CLI says what broke.
 *
 * @internal
 */
export const tail = (text: string, lines = 6): string =>
  text.trim().split("\n").filter((line) => line.trim().length > 0).slice(-lines).join("\n").slice(-800)

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
    const after = name.toLowerCase().startsWith("x-ratelimit-reset-") && typeof value === "string"
      ? hinted(spelled(value))
      : undefined
    return after === undefined ? [] : [after]
  })
  return resets.length === 0 ? undefined : Option.getOrUndefined(DateTime.make(date + Math.max(...resets)))
}

interface Said {
  readonly type: string
  readonly code: string
  readonly message: string
}

const text = (value: unknown): string =>
  typeof value === "string" ? value : typeof value === "number" ? String(value) : ""

const record = (value: unknown): Record<string, unknown> =>
  typeof value === "object" && value !== null ? value as Record<string, unknown> : {}

/**
 * The error a body carries in any of the shapes providers use: Anthropic's
 * `{ type: "error", error: { type, message } }`, OpenAI's `{ error: { message, type, code } }`,
 * Ollama's `{ error: "…" }`, vLLM's `{ object: "error", message, type, code }`; an HTML page or
 * plain text is kept as its words.
 */
const saidIn = (body: string): Said => {
  try {
    const parsed = record(JSON.parse(body))
    const error = parsed.error
    if (typeof error === "string") return { type: "", code: "", message: error }
    const inner = typeof error === "object" && error !== null ? record(error) : parsed
    const details = record(inner.details)
    return {
      type: text(inner.type) === "error" ? "" : text(inner.type),
      code: text(inner.code) || text(details.error_code) || text(inner.status),
      message: text(inner.message)
    }
  } catch {
    const words = body.replace(/<[^>]*>/g, " ").replace(/\s+/g, " ").trim()
    return { type: "", code: "", message: words.slice(0, 300) }
  }
}

/** The wait `retry-after-ms`, else `retry-after`, asks for, in millis. */
const retryAfter = (headers: Classify.Refusal["headers"], now: number): number | undefined => {
  const millis = headers["retry-after-ms"]
  const asked = millis === undefined ? undefined : waitAsked("retry-after-ms", millis, now)
  if (asked !== undefined) return asked
  const value = headers["retry-after"]
  return value === undefined ? undefined : waitAsked("retry-after", value, now)
}

/** The longest wait any rate-limit reset header asks for, in millis. */
const latestReset = (headers: Classify.Refusal["headers"], now: number): number | undefined => {
  const waits = Object.entries(headers).flatMap(([name, value]) => {
    const lower = name.toLowerCase()
    const wait = value === undefined || lower.startsWith("retry-after") ? undefined : waitAsked(lower, value, now)
    return wait === undefined ? [] : [wait]
  })
  return waits.length === 0 ? undefined : Math.max(...waits)
}

/** @internal */
export const longestRefusal = 64 * 1024

/** @internal */
export const classify = (refusal: Classify.Refusal, place: Place, now: number): Failure.Failure => {
  const said = saidIn(refusal.body)
  const status = refusal.status
  // Both are waits of at most longestAsked from now: the quota's end comes from the reset headers first.
  const wait = retryAfter(refusal.headers, now)
  const reset = latestReset(refusal.headers, now)
  return judge({
    status,
    words: `${said.type} ${said.code} ${said.message}`,
    said: [
      (status === undefined ? "in the stream" : String(status)) +
      (refusal.cut === true ? ` (only the first ${longestRefusal / 1024} KiB of the body read)` : ""),
      said.type || said.code,
      said.message
    ]
      .filter((part) => part !== "")
      .join(": "),
    retryAfter: wait ?? reset,
    until: reset === undefined ? (wait === undefined ? undefined : now + wait) : now + reset
  }, place)
}
