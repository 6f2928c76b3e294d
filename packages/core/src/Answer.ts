/**
 * What a turn does about each kind of failure, held as data: one answer record per kind, so a
 * preset or a user can change any of them. {@link primary} is the design's table.
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type * as Failure from "./Failure.js"

/** A field left out, both when made and when decoded, is `value`. */
function withDefault<S extends Schema.Codec<unknown, unknown> & Schema.WithoutConstructorDefault>(
  schema: S,
  value: S["Type"] & S["~type.make.in"]
): Schema.withDecodingDefaultType<Schema.withConstructorDefault<S>> {
  return schema.pipe(
    Schema.withConstructorDefault(Effect.succeed(value)),
    Schema.withDecodingDefaultType(Effect.succeed(value))
  ) as never
}

/**
 * One kind's answer.
 *
 * - `here`: the goes the kind itself asks for at the same place, each after its wait.
 * - `atLeast`: the least wait before any go here (a Retry-After raises it further).
 * - `retryAfter`: what a Retry-After longer than the next wait here does: `"waits"`, the wait is
 *   raised to it; `"moves"`, the turn goes on to the next place at once (its cooldown registered).
 * - `jitter`: the share of each `here` wait that is drawn at random (0 to 1): a wait `w` is drawn
 *   uniformly from `[w · (1 − jitter)`, `w]`, so it is never shorter than its lower bound.
 * - `honours`: when given, a Retry-After up to this long is the next wait here exactly (never
 *   sooner, never later); a longer one moves on at once, its cooldown registered.
 * - `step`: whether the step's own tries and policy apply as well.
 * - `reopen`: reopen the transport and resume the conversation by its id before going again.
 * - `accounts` / `places`: whether the account chain, then the place chain, is walked.
 * - `cooldown`: cool the place down this long (or until the failure says) so others skip it.
 * - `coolsOn`: when given, only a failure that came with one of these HTTP statuses cools its place.
 * - `once`: taken once whatever a chain says (only a `Compactor` may send it again, shorter).
 * - `counts`: whether the failure counts against the place's health (toward its breaker); a
 *   refusal of what fallback sent says nothing about the place.
 *
 * @since 0.1.0
 * @category models
 */
export class Answer extends Schema.Class<Answer>("@fallback/core/Answer")({
  here: withDefault(Schema.Array(Schema.DurationFromMillis), []),
  atLeast: withDefault(Schema.DurationFromMillis, Duration.zero),
  retryAfter: withDefault(Schema.Literals(["waits", "moves"]), "waits"),
  jitter: withDefault(Schema.Number.check(Schema.isBetween({ minimum: 0, maximum: 1 })), 0),
  honours: Schema.optional(Schema.DurationFromMillis),
  step: withDefault(Schema.Boolean, false),
  reopen: withDefault(Schema.Boolean, false),
  accounts: withDefault(Schema.Boolean, false),
  places: withDefault(Schema.Boolean, false),
  cooldown: Schema.optional(Schema.DurationFromMillis),
  coolsOn: Schema.optional(Schema.Array(Schema.Int)),
  once: withDefault(Schema.Boolean, false),
  counts: withDefault(Schema.Boolean, true)
}) {}

/**
 * An answer for every kind.
 *
 * @since 0.1.0
 * @category models
 */
export type Table = { readonly [K in Failure.Kind]: Answer }

/**
 * How long a refused account or a retired model is remembered as such: a day, across runs.
 *
 * @since 0.1.0
 * @category constants
 */
export const remembered: Duration.Duration = Duration.hours(24)

/**
 * The answer, in every preset, to what would fail the same way at every place: a history too long
 * (only a `Compactor` sends it again), arguments the CLI refused, a prompt refused by content
 * policy. Taken once, never retried, never walked, and not counted against the place (nothing is
 * wrong with it).
 *
 * @since 0.1.0
 * @category constants
 */
export const takenOnce: Answer = new Answer({ once: true, counts: false })

/**
 * The primary design's answers.
 *
 * @since 0.1.0
 * @category constants
 */
export const primary: Table = (() => {
  // 000, "Too many requests — HTTP 429, a quota spent, RESOURCE_EXHAUSTED, overloaded": waits at
  // least 30 seconds, then walks the account chain. A spent quota is that row too; the time it
  // names, when it names one, is how long its place cools down.
  const tooMany = new Answer({
    here: [Duration.seconds(30)],
    atLeast: Duration.seconds(30),
    step: true,
    accounts: true,
    places: true,
    cooldown: Duration.seconds(30)
  })
  // 000, "Anything else": the goes the step asked for, the step's own wait, then the account chain.
  const anythingElse = new Answer({ step: true, accounts: true, places: true })
  return {
    RateLimited: tooMany,
    QuotaExhausted: tooMany,
    // "A key that was refused wants no wait at all — it is refused a minute later too": the
    // account stays refused (cooling a day) until signed in again or `fallback status --clear`.
    AuthRefused: new Answer({ accounts: true, places: true, cooldown: remembered }),
    // "A model that was retired wants neither": it stays retired a day, so no later run asks again.
    ModelNotFound: new Answer({ places: true, cooldown: remembered }),
    // "Three goes here, a second apart": the first and two more.
    StoreBusy: new Answer({ here: [Duration.seconds(1), Duration.seconds(1)], places: true }),
    ConnectionLost: new Answer({ here: [Duration.zero], reopen: true, step: true, accounts: true, places: true }),
    Killed: new Answer({ here: [Duration.seconds(1)], reopen: true, step: true, accounts: true, places: true }),
    NotInstalled: new Answer({ places: true }),
    ContextTooLong: takenOnce,
    ArgumentsRefused: takenOnce,
    // "A prompt the model refused is the same refusal every time": taken once.
    Refused: takenOnce,
    Timeout: anythingElse,
    Unresponsive: anythingElse,
    Unknown: anythingElse
  }
})()

/**
 * A table with some kinds answered differently.
 *
 * @since 0.1.0
 * @category combinators
 */
export const override = (table: Table, changes: Partial<Table>): Table => ({ ...table, ...changes })

/**
 * The answer to a failure.
 *
 * @since 0.1.0
 * @category getters
 */
export const of = (table: Table, failure: Failure.Failure): Answer => table[failure._tag]

/**
 * What an answer does about a failure, as the part of a notice that says what answers it: "a
 * wait, another account or another place is what answers it". None for an answer that only
 * takes the step's own goes.
 *
 * @since 0.1.0
 * @category utils
 */
export const remedy = (answer: Answer): string | undefined => {
  // Worked out once per answer: a failover's notice costs no string building.
  if (remedies.has(answer)) return remedies.get(answer)
  const said = remedyOf(answer)
  remedies.set(answer, said)
  return said
}

const remedies = new WeakMap<Answer, string | undefined>()

const remedyOf = (answer: Answer): string | undefined => {
  if (answer.once) return "another try cannot fix it; only a shorter history answers it"
  const parts = [
    ...(answer.reopen ? ["reopening and resuming"] : answer.here.length > 0 ? ["a wait"] : []),
    ...(answer.accounts ? ["another account"] : []),
    ...(answer.places ? ["another place"] : [])
  ]
  if (parts.length === 0) return undefined
  const said = parts.length === 1 ? parts[0]! : `${parts.slice(0, -1).join(", ")} or ${parts.at(-1)!}`
  return `${said} is what answers it`
}
