/**
 * What went wrong with a turn, classified: one tagged error per kind, each carrying the place it
 * happened at and what the backend said (with secrets masked).
 *
 * @since 0.1.0
 */
import * as DateTime from "effect/DateTime"
import * as Match from "effect/Match"
import * as Schema from "effect/Schema"
import * as SchemaTransformation from "effect/SchemaTransformation"
import { printable } from "./internal/echo.js"
import { excerpt, redact } from "./internal/secret.js"
import { wait } from "./internal/words.js"
import { Place } from "./Place.js"

const SaidText = Schema.String.pipe(Schema.brand("@fallback/core/Said"))

/**
 * What a backend said about a failure, with anything that looks like an API key or a bearer
 * token masked. Decoding masks too, so no stored failure holds a secret.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Said: Schema.Codec<typeof SaidText.Type, string> = Schema.String.pipe(
  Schema.decodeTo(
    SaidText,
    SchemaTransformation.transform({ decode: (text: string): string => mask(text), encode: (said: string) => said })
  )
)

/**
 * @since 0.1.0
 * @category models
 */
export type Said = typeof SaidText.Type

/**
 * Masks secrets in what a backend said; the only way to make a {@link Said}.
 *
 * @since 0.1.0
 * @category constructors
 */
export const said = (text: string): Said => mask(text)

function mask(text: string): Said {
  return printable(excerpt(redact(text))) as Said
}

const where = { place: Place, said: Said }

/**
 * Why a place said too many requests: the account spending too fast (`rate-limit`), or the
 * service itself short of capacity (`overloaded`: 529, `overloaded_error`, "server is overloaded").
 * Both take the same answer; a notice says which it was.
 *
 * @since 0.1.0
 * @category models
 */
export const TooMany = Schema.Literals(["rate-limit", "overloaded"])

/**
 * Too many requests: HTTP 429, RESOURCE_EXHAUSTED, overloaded / 529 (with `reason: "overloaded"`).
 *
 * @since 0.1.0
 * @category errors
 */
export class RateLimited extends Schema.TaggedError<RateLimited>("@fallback/core/RateLimited")("RateLimited", {
  ...where,
  retryAfter: Schema.optional(Schema.DurationFromMillis),
  reason: Schema.optional(TooMany)
}) {
  override get message(): string {
    return describe(this)
  }
}

/**
 * The account's quota or credit is spent: HTTP 402, billing, "quota … until T".
 *
 * @since 0.1.0
 * @category errors
 */
export class QuotaExhausted extends Schema.TaggedError<QuotaExhausted>("@fallback/core/QuotaExhausted")(
  "QuotaExhausted",
  { ...where, until: Schema.optional(Schema.DateTimeUtcFromString) }
) {
  override get message(): string {
    return describe(this)
  }
}

/**
 * The credentials were refused: 401, 403, an expired login, a model the account is not entitled to.
 *
 * @since 0.1.0
 * @category errors
 */
export class AuthRefused extends Schema.TaggedError<AuthRefused>("@fallback/core/AuthRefused")("AuthRefused", {
  ...where,
  /** The HTTP status it came with, where one did: a preset may answer a 401 and a 403 apart. */
  status: Schema.optional(Schema.Number)
}) {
  override get message(): string {
    return describe(this)
  }
}

/**
 * No such model: 404, retired, "does not exist".
 *
 * @since 0.1.0
 * @category errors
 */
export class ModelNotFound extends Schema.TaggedError<ModelNotFound>("@fallback/core/ModelNotFound")(
  "ModelNotFound",
  where
) {
  override get message(): string {
    return describe(this)
  }
}

/**
 * The backend's own store was busy (opencode's "database is locked").
 *
 * @since 0.1.0
 * @category errors
 */
export class StoreBusy extends Schema.TaggedError<StoreBusy>("@fallback/core/StoreBusy")("StoreBusy", where) {
  override get message(): string {
    return describe(this)
  }
}

/**
 * The transport went away: ECONNRESET, EPIPE, a gateway that closed.
 *
 * @since 0.1.0
 * @category errors
 */
export class ConnectionLost extends Schema.TaggedError<ConnectionLost>("@fallback/core/ConnectionLost")(
  "ConnectionLost",
  where
) {
  override get message(): string {
    return describe(this)
  }
}

/**
 * The process was killed rather than answered: a signal, an out-of-memory kill.
 *
 * @since 0.1.0
 * @category errors
 */
export class Killed extends Schema.TaggedError<Killed>("@fallback/core/Killed")("Killed", {
  ...where,
  signal: Schema.String
}) {
  override get message(): string {
    return describe(this)
  }
}

/**
 * Nothing to run, or nothing that would start; `install` is the command line that installs it.
 *
 * @since 0.1.0
 * @category errors
 */
export class NotInstalled extends Schema.TaggedError<NotInstalled>("@fallback/core/NotInstalled")("NotInstalled", {
  ...where,
  install: Schema.String
}) {
  override get message(): string {
    return describe(this)
  }
}

/**
 * The prompt is longer than the model's context window; it is that long at every place.
 *
 * @since 0.1.0
 * @category errors
 */
export class ContextTooLong extends Schema.TaggedError<ContextTooLong>("@fallback/core/ContextTooLong")(
  "ContextTooLong",
  where
) {
  override get message(): string {
    return describe(this)
  }
}

/**
 * The CLI refused the arguments fallback gave it: a usage error ("unknown option", an invalid
 * option value, "cannot be used with root privileges"). It is the same refusal at every account,
 * and says nothing of the place's health. `argument` is the one refused, where its words name it.
 *
 * @since 0.1.0
 * @category errors
 */
export class ArgumentsRefused extends Schema.TaggedError<ArgumentsRefused>("@fallback/core/ArgumentsRefused")(
  "ArgumentsRefused",
  { ...where, argument: Schema.optional(Schema.String) }
) {
  override get message(): string {
    return describe(this)
  }
}

/**
 * The provider refused the prompt by its content policy (OpenAI's `content_policy_violation` or
 * `content_filter`, Azure's content filter, Anthropic's `stop_reason: "refusal"`): the same refusal
 * every time. `said` is the provider's reason.
 *
 * @since 0.1.0
 * @category errors
 */
export class Refused extends Schema.TaggedError<Refused>("@fallback/core/Refused")("Refused", where) {
  override get message(): string {
    return describe(this)
  }
}

/**
 * Which part of a turn ran out of time: the wait for the first byte, the whole send, or a timer
 * of the provider's or the CLI's own (408, 504, ETIMEDOUT, "timed out"), whose length it did not say.
 *
 * @since 0.1.0
 * @category models
 */
export const Phase = Schema.Literals(["first-byte", "whole-send", "provider"])

/**
 * The turn ran out of time in the given phase; `after` is how long it had (zero for `provider`,
 * whose timer is not ours).
 *
 * @since 0.1.0
 * @category errors
 */
export class Timeout extends Schema.TaggedError<Timeout>("@fallback/core/Timeout")("Timeout", {
  ...where,
  phase: Phase,
  after: Schema.DurationFromMillis
}) {
  override get message(): string {
    return describe(this)
  }
}

/**
 * A stream that stopped moving without an error.
 *
 * @since 0.1.0
 * @category errors
 */
export class Unresponsive extends Schema.TaggedError<Unresponsive>("@fallback/core/Unresponsive")(
  "Unresponsive",
  where
) {
  override get message(): string {
    return describe(this)
  }
}

/**
 * Anything no other kind names.
 *
 * @since 0.1.0
 * @category errors
 */
export class Unknown extends Schema.TaggedError<Unknown>("@fallback/core/Unknown")("Unknown", where) {
  override get message(): string {
    return describe(this)
  }
}

/**
 * Every failure a turn can end with, as one schema.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Failure = Schema.Union([
  RateLimited,
  QuotaExhausted,
  AuthRefused,
  ModelNotFound,
  StoreBusy,
  ConnectionLost,
  Killed,
  NotInstalled,
  ContextTooLong,
  Timeout,
  Unresponsive,
  Unknown,
  ArgumentsRefused,
  Refused
])

/**
 * @since 0.1.0
 * @category models
 */
export type Failure = typeof Failure.Type

/**
 * The name of a failure kind (`"RateLimited"`, …).
 *
 * @since 0.1.0
 * @category models
 */
export type Kind = Failure["_tag"]

/**
 * Every kind, in the order of the design's answer table, then the kinds added after it (their exit
 * statuses follow on).
 *
 * @since 0.1.0
 * @category constants
 */
export const kinds: ReadonlyArray<Kind> = Failure.members.map((member) => member.fields._tag.schema.literal)

/**
 * Whether a value is a failure of any kind.
 *
 * @since 0.1.0
 * @category guards
 */
export const isFailure: (u: unknown) => u is Failure = Schema.is(Failure)

/**
 * Who a failure happened at, as a person names it: the CLI, and its account where the place
 * names one (`claude@work`).
 *
 * @since 0.1.0
 * @category utils
 */
export const who = (place: Place): string => place.account === undefined ? place.cli : `${place.cli}@${place.account}`

/**
 * What happened, at which place, as a notice tells a person: e.g. "claude@work is rate-limited".
 * What answers it is the answer table's to say (see `Answer.remedy`), not the failure's.
 *
 * @since 0.1.0
 * @category utils
 */
export const describe: (failure: Failure) => string = Match.type<Failure>().pipe(
  Match.tagsExhaustive({
    RateLimited: ({ place, reason, retryAfter }) =>
      `${who(place)} ${reason === "overloaded" ? "is overloaded" : "is rate-limited"}` +
      (retryAfter === undefined ? "" : ` and asked for a wait of ${wait(retryAfter)}`),
    QuotaExhausted: ({ place, until }) =>
      `${who(place)} has no quota left` + (until === undefined ? "" : ` until ${DateTime.formatIso(until)}`),
    AuthRefused: ({ place }) =>
      `${who(place)} refused the credentials` +
      (place.account === undefined
        ? " (it needs signing in again)"
        : ` (account ${place.account} needs signing in again)`),
    ModelNotFound: ({ place }) => `${who(place)} has no model ${place.model} (retired, or never there)`,
    StoreBusy: ({ place }) => `${who(place)}'s own store is busy (two turns share one database)`,
    ConnectionLost: ({ place }) => `${who(place)} lost the connection (the socket, not the session)`,
    Killed: ({ place, signal }) =>
      `${who(place)} was killed by ${signal} rather than answering (the machine may be out of memory)`,
    NotInstalled: ({ install, place }) => `${place.cli} is not installed here (install it with: ${install})`,
    ContextTooLong: ({ place }) => `the prompt is longer than ${place.model}'s context window`,
    ArgumentsRefused: ({ argument, place, said }) =>
      `${place.cli} refused ${
        argument === undefined ? "the arguments" : `the argument ${argument}`
      } fallback gave it: ${said}`,
    Refused: ({ place, said }) => `${who(place)} refused the prompt by its content policy: ${said}`,
    Timeout: ({ after, phase, place, said }) =>
      phase === "first-byte"
        ? `${who(place)} sent nothing within ${wait(after)} (the first-byte limit; --first-byte gives it longer)`
        : phase === "provider"
        ? `${who(place)} timed out on its own side (${said})`
        : `${who(place)} did not finish within ${wait(after)}`,
    Unresponsive: ({ place }) => `${who(place)} stopped streaming without an error`,
    Unknown: ({ place, said }) => `${who(place)} failed: ${said}`
  })
)
