/**
 * The one classifier: the table that maps what a backend reported (an HTTP status, a provider's
 * error body and headers, a CLI's error words, a signal) to a failure kind, for every backend —
 * the agent CLIs, the HTTP providers and `effect/ai` models — so a 502 is the same kind whichever
 * way it arrived.
 *
 * @since 0.1.0
 */
import type * as DateTime from "effect/DateTime"
import type * as Failure from "./Failure.js"
import * as internal from "./internal/classify.js"
import * as waits from "./internal/waits.js"
import type { Place } from "./Place.js"

/**
 * What a backend reported when a turn failed, as the classifier reads it.
 *
 * - `status`: the HTTP status, where one was reported.
 * - `words`: the words to read: the message, and any vendor type or code.
 * - `said`: what the failure quotes.
 * - `retryAfter`: the wait asked for (Retry-After), in millis.
 * - `until`: when a spent quota comes back, in epoch millis.
 *
 * @since 0.1.0
 * @category models
 */
export interface Report {
  readonly status?: number | undefined
  readonly words: string
  readonly said: string
  readonly retryAfter?: number | undefined
  readonly until?: number | undefined
}

/**
 * What a provider answered when it did not answer: the HTTP status (none for an error inside a
 * stream), the response headers (names in lower case), the body as text, and whether the body went
 * on past {@link longestRefusal} (the rest was not read).
 *
 * @since 0.1.0
 * @category models
 */
export interface Refusal {
  readonly status?: number | undefined
  readonly headers: Readonly<Record<string, string | undefined>>
  readonly body: string
  readonly cut?: boolean | undefined
}

/**
 * The kind a report names: words that refine any status first (a usage error, a refused prompt,
 * a locked store, a prompt too long, a spent quota), then a status that decides by itself, then
 * the words in the table's order; none when nothing is known.
 *
 * @since 0.1.0
 * @category utils
 */
export const kindOf: (status: number | undefined, words: string) => Failure.Kind | undefined = internal.kindOf

/**
 * The failure a report is, by the one table; `Unknown` saying it when the table names nothing.
 * A wait asked for (in the report or in its words) becomes a rate limit's `retryAfter`, bounded by
 * {@link longestAsked}; `until` a spent quota's end.
 *
 * @since 0.1.0
 * @category constructors
 */
export const judge: (report: Report, place: Place) => Failure.Failure = internal.judge

/**
 * The failure an HTTP provider's refusal is: its status, the vendor's own error type, code and
 * words in any of the body shapes providers use, and `retry-after` and the vendors' reset headers
 * as the rate limit's wait and the quota's end (each read as a hint).
 *
 * @since 0.1.0
 * @category constructors
 */
export const classify: (refusal: Refusal, place: Place, now: number) => Failure.Failure = internal.classify

/**
 * The failure an HTTP status names, with the message that came with it; a retry-after in
 * seconds, when one was sent, goes into `RateLimited.retryAfter`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const byStatus: (status: number, message: string, place: Place, retryAfter?: number) => Failure.Failure =
  internal.byStatus

/**
 * The failure an error message names, or `Unknown` saying it.
 *
 * @since 0.1.0
 * @category constructors
 */
export const byMessage: (message: string, place: Place) => Failure.Failure = internal.byMessage

/**
 * The failure an error message names, or none when its words say nothing known. Only ever given
 * what a backend reported as an error, never the answer's own text.
 *
 * @since 0.1.0
 * @category constructors
 */
export const byWords: (message: string, place: Place) => Failure.Failure | undefined = internal.byWords

/**
 * A process that died by a signal.
 *
 * @since 0.1.0
 * @category constructors
 */
export const killed: (signal: string, place: Place, said: string) => Failure.Failure = internal.killed

/**
 * `Unknown`, saying what happened.
 *
 * @since 0.1.0
 * @category constructors
 */
export const other: (said: string, place: Place) => Failure.Failure = internal.other

/**
 * The argument a usage error names, as it was given (`--permission-mode yolo`, `--sandbox
 * acceptEdits`, `--no-such-flag`), in the words of commander, clap or yargs; none where its words
 * do not say.
 *
 * @since 0.1.0
 * @category utils
 */
export const refusedArgument: (words: string) => string | undefined = internal.refusedArgument

/**
 * The wait an error message asks for in its own words ("retry after 30s", "retry-after: 30"), in
 * seconds.
 *
 * @since 0.1.0
 * @category utils
 */
export const retryAfterIn: (message: string) => number | undefined = internal.retryAfterIn

/**
 * The last few lines of a stream, for a failure to quote: the end is where a CLI says what broke.
 *
 * @since 0.1.0
 * @category utils
 */
export const tail: (text: string, lines?: number) => string = internal.tail

/**
 * When a spent quota comes back, from response headers a CLI passed on: the latest
 * `x-ratelimit-reset-*` after the response's own `date`, so judging stays a pure function of what
 * was recorded.
 *
 * @since 0.1.0
 * @category utils
 */
export const quotaUntil: (headers: Readonly<Record<string, unknown>> | undefined) => DateTime.Utc | undefined =
  internal.quotaUntil

/**
 * The most of a refusal's body that is read: 64 KiB, far more than any provider's error says.
 *
 * @since 0.1.0
 * @category constants
 */
export const longestRefusal: number = internal.longestRefusal

/**
 * The longest wait, in millis, a provider's headers (or words) can ask for: 30 minutes, the
 * cooldown the escalating preset registers for a rate limit or a spent quota. A longer one is read
 * as this; health shared with every host is never cooled for longer on a provider's say-so.
 *
 * @since 0.1.0
 * @category constants
 */
export const longestAsked: number = waits.longestAsked

/**
 * A wait a provider asked for, in millis, as a hint: none when negative or not a finite number,
 * at most {@link longestAsked}.
 *
 * @since 0.1.0
 * @category utils
 */
export const hinted: (millis: number | undefined) => number | undefined = waits.hinted

/**
 * A Go-style duration as OpenAI writes its reset headers (`1s`, `6m0s`, `20ms`, `1h2m3.5s`), in
 * millis; none for anything else.
 *
 * @since 0.1.0
 * @category utils
 */
export const spelled: (value: string) => number | undefined = waits.spelled

/**
 * The wait one response header asks for (`retry-after-ms`, `retry-after` in seconds or as an HTTP
 * date, `x-ratelimit-reset-*`, `anthropic-ratelimit-*-reset`), in millis from `now`: a hint, so
 * none when the header is another or its value is negative, not a number or a date, or not
 * finite; at most {@link longestAsked}.
 *
 * @since 0.1.0
 * @category utils
 */
export const waitAsked: (name: string, value: string, now: number) => number | undefined = waits.waitAsked
