/**
 * An agent: a session at a place, made with settings that travel unchanged to every stand-in.
 * Its `turn` takes the reference page's five steps in order, stopping at the first that works:
 *
 * 1. take the turn (if it lands, nothing else happens: no look-up, no stand-in built);
 * 2. classify what went wrong (the backend's own word is believed);
 * 3. try again at the same place: the step's tries and policy plus what the kind asks for;
 * 4. walk the account chain in the same conversation (resumed by session id);
 * 5. walk the place chain: a new session at the next place, with the same settings.
 *
 * An agent that moved stays moved. Failover happens only while the caller has been handed
 * nothing: a whole reply (`reply`, `ask`) until it ends, a streamed turn until its first real
 * content. After that nothing is replayed: the turn is continued at the next place where it
 * `continues` (an assistant prefill of what was delivered), else it ends as a {@link Cut} with
 * what was delivered. A silent route (no first byte within the limit of its kind of place) is not
 * asked again at the same place, and a context too long moves only to a larger window.
 * One budget bounds each turn: a deadline and a cap on attempts across retries, accounts and
 * places.
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"
import * as Answer from "./Answer.js"
import * as Backend from "./Backend.js"
import type * as Failure from "./Failure.js"
import type * as Health from "./Health.js"
import * as internal from "./internal/turn/agent.js"
import * as cut from "./internal/turn/cut.js"
import * as Place from "./Place.js"
import * as Settings from "./Settings.js"
import type * as Steps from "./Steps.js"

/**
 * One budget per turn: the turn gives up once `deadline` has passed since it started, or once it
 * has made `attempts` requests, whatever its chains and retries say. A wait the deadline cannot
 * cover is not started.
 *
 * @since 0.1.0
 * @category models
 */
export interface Budget {
  readonly deadline: Duration.Duration
  readonly attempts: number
}

/**
 * The watchdog on a stream that hangs without an error: after `every` with nothing sent, probe
 * the place (its backend's check, within `within`); a failed probe is retried after `retry`, and
 * `failures` failed probes in a row fail the attempt as Unresponsive.
 *
 * @since 0.1.0
 * @category models
 */
export interface Watchdog {
  readonly every: Duration.Duration
  readonly retry: Duration.Duration
  readonly failures: number
  readonly within: Duration.Duration
}

/**
 * How the place chain picks the next place: skip places served by a provider that already failed
 * this turn, skip models whose context window is smaller than the prompt, health-check each
 * candidate (within `check`), and go over the list up to `rounds` times.
 *
 * @since 0.1.0
 * @category models
 */
export interface Candidates {
  readonly skipFailedProvider: boolean
  readonly fitWindow: boolean
  readonly check: Option.Option<Duration.Duration>
  readonly rounds: number
}

/**
 * The limits on one kind of place (see {@link Backend.Kind}), each where set in place of the
 * agent's own: `firstByte` in place of `Options.firstByte`, `stall` (how long a stream may send
 * nothing once it has begun) in place of `Options.idle`. `Option.none()` sets no limit.
 *
 * @since 0.2.0
 * @category models
 */
export interface KindLimits {
  readonly firstByte?: Option.Option<Duration.Duration> | undefined
  readonly stall?: Option.Option<Duration.Duration> | undefined
}

/**
 * The limits per kind of place: an HTTP API's first token is quick and its stream steady, an agent
 * CLI starts up slowly and thinks aloud (its thinking is a sign of life and keeps the stall away).
 *
 * @since 0.2.0
 * @category models
 */
export interface Limits {
  readonly http: KindLimits
  readonly cli: KindLimits
}

/**
 * How an agent's turns recover.
 *
 * - `answers`: one answer per failure kind.
 * - `firstByte`: how long an attempt may go without real content before it yields (30 s).
 * - `send`: a ceiling on a whole attempt (none by default); before the first content it is a failure
 *   the turn answers, after it the failure surfaces with what was delivered.
 * - `idle`: how long an answer already streaming may send nothing before it ends as Unresponsive,
 *   with what it delivered (announced at half of it); none leaves only the deadline, the send
 *   ceiling and the watchdog.
 * - `limits`: the first byte and the stall per kind of place, in place of `firstByte` and `idle`
 *   where set; by default an HTTP API has 20 s to its first content and may be quiet 30 s once it
 *   streams, an agent CLI keeps `firstByte` and `idle` (30 s, 2 minutes: its start-up and its
 *   thinking need them). Options without `limits` keep `firstByte` and `idle` at every place.
 * - `watchdog`: probing of a stream that stops moving (none by default), before or after the first
 *   content, with the same difference.
 * - `candidates`: how the next place is picked.
 * - `moved`: `"stays"` (an agent that moved stays moved) or `"returns"` (each turn starts at the
 *   agent's own place again, skipping what is parked).
 * - `fallback`: false pins the agent to its place: it never walks accounts or places.
 * - `budget`: the turn's deadline and attempt cap.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly answers: Answer.Table
  readonly firstByte: Option.Option<Duration.Duration>
  readonly send: Option.Option<Duration.Duration>
  readonly idle: Option.Option<Duration.Duration>
  readonly limits?: Limits | undefined
  readonly watchdog: Option.Option<Watchdog>
  readonly candidates: Candidates
  readonly moved: "stays" | "returns"
  readonly fallback: boolean
  readonly budget: Budget
}

/**
 * The primary design's options: its answers, a 30 s first byte, 2 minutes of quiet after the
 * answer began (an HTTP API: 20 s and 30 s), moved stays moved, and a budget of 15 minutes and 20 requests a turn.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaults: Options = {
  answers: Answer.primary,
  firstByte: Option.some(Duration.seconds(30)),
  send: Option.none(),
  idle: Option.some(Duration.minutes(2)),
  limits: {
    http: { firstByte: Option.some(Duration.seconds(20)), stall: Option.some(Duration.seconds(30)) },
    cli: {}
  },
  watchdog: Option.none(),
  candidates: { skipFailedProvider: false, fitWindow: false, check: Option.none(), rounds: 1 },
  moved: "stays",
  fallback: true,
  budget: { deadline: Duration.minutes(15), attempts: 20 }
}

/**
 * An agent.
 *
 * @since 0.1.0
 * @category models
 */
export interface Agent {
  /** The place the agent was made at. */
  readonly origin: Place.Place
  /** Its settings, carried to every stand-in. */
  readonly settings: Settings.Settings
  /** Where its next turn goes. */
  readonly at: Effect.Effect<Place.Place>
  /**
   * Takes a turn: the answer as a stream of events. Once content has reached the caller a failure
   * is answered by a continuation where the next place `continues`, else it ends the turn as a
   * {@link Cut} with what was delivered.
   */
  readonly turn: (prompt: string) => Stream.Stream<Backend.Event, Failure.Failure | Cut>
  /**
   * Takes a turn and answers it whole: the same five steps, with each place's `reply` where its
   * session has one (no stream is read, and a failed reply delivered nothing, so the turn may
   * still move on), else its stream read to the end.
   */
  readonly reply: (prompt: string) => Effect.Effect<ReadonlyArray<Backend.Event>, Failure.Failure>
}

/**
 * What making an agent needs: the backends, the steps, and the health of places. Accounts, a
 * Compactor and Notices are used when given.
 *
 * @since 0.1.0
 * @category models
 */
export type Requirements = Backend.Backends | Steps.Steps | Health.Health

/**
 * Makes an agent at a place. Nothing is opened until its first turn; every session it opens (its
 * own and its stand-ins') is held until the scope closes.
 *
 * @example
 * ```ts
 * import { Agent, Backend, Health, Steps } from "@fallback/core"
 * import { Effect, Layer } from "effect"
 *
 * const answer = Effect.gen(function*() {
 *   const agent = yield* Agent.make("claude@work/claude-opus-5")
 *   return yield* Agent.ask(agent, "refactor the parser")
 * }).pipe(
 *   Effect.scoped,
 *   // the backends come from @fallback/backends: Claude.make(), OpenAiCompatible.make(…), …
 *   Effect.provide(Layer.mergeAll(Backend.Backends.layer([]), Steps.Steps.layerMemory, Health.Health.layerMemory()))
 * )
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: (
  place: Place.Place | string,
  settings?: Settings.Settings,
  options?: Partial<Options>
) => Effect.Effect<Agent, Place.InvalidPlace | SettingsRefused, Scope.Scope | Requirements> = Effect.fn("Agent.make")(
  function*(place, settings = Settings.plain, options = {}) {
    const origin = typeof place === "string" ? yield* Effect.fromResult(Place.parse(place)) : place
    // a Settings made without its schema (a cast, plain JavaScript) is held to the vocabulary too
    const word = settings.permission === undefined ? undefined : Settings.parsePermission(settings.permission)
    if (word !== undefined && Result.isFailure(word)) {
      return yield* new SettingsRefused({ place: Place.format(origin), reason: word.failure.message })
    }
    // A move is refused where the next backend cannot honour the settings; the first place is
    // held to the same rule here, so no setting is quietly ignored at the start either.
    const refusal = Option.flatMap(
      (yield* Backend.Backends).get(origin.cli),
      (backend) => Settings.refusal(settings, backend.capabilities)
    )
    if (Option.isSome(refusal)) {
      return yield* new SettingsRefused({ place: Place.format(origin), reason: `${origin.cli} ${refusal.value}` })
    }
    return yield* internal.make(origin, settings, { ...defaults, ...options })
  }
)

/**
 * The place an agent would be made at cannot honour its settings (effort, permission rung, web
 * search off, skills, callbacks): the agent is not made, as a move to such a place stops a turn.
 *
 * @since 0.1.0
 * @category errors
 */
export class SettingsRefused extends Schema.TaggedError<SettingsRefused>("@fallback/core/SettingsRefused")(
  "SettingsRefused",
  { place: Schema.String, reason: Schema.String }
) {
  override get message(): string {
    return `${this.place}: ${this.reason}; start at a place whose backend can, or leave the setting out`
  }
}

/**
 * A streamed turn that failed after content had reached the caller, where it could not be
 * continued: at `place`, with the text `delivered` so far and the `failure` that cut it;
 * `continuation` is how the next place failed to continue it, when it was asked to. Nothing is
 * replayed, and a truncated answer is never passed off as whole.
 *
 * @since 0.2.0
 * @category errors
 */
export const Cut: typeof cut.Cut = cut.Cut

/**
 * @since 0.2.0
 * @category errors
 */
export type Cut = cut.Cut

/**
 * Takes a turn and waits for the whole answer: the result's text, or the text events joined.
 *
 * @since 0.1.0
 * @category combinators
 */
export const ask = (agent: Agent, prompt: string): Effect.Effect<string, Failure.Failure> =>
  Effect.map(agent.reply(prompt), Backend.textOf)
