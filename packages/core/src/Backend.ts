/**
 * The interface a backend implements: what runs turns for one CLI or API. A backend opens
 * sessions at a place, as an account, with an agent's settings; a session takes turns and answers
 * each with a stream of events that fails with a classified {@link Failure.Failure}. A backend that
 * knows which kind a failure is says so and is believed.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"
import type * as Account from "./Account.js"
import type * as Failure from "./Failure.js"
import type * as Place from "./Place.js"
import type * as Settings from "./Settings.js"

/**
 * Tokens a turn took in and gave out.
 *
 * @since 0.1.0
 * @category models
 */
export interface Usage {
  readonly input: number
  readonly output: number
}

/**
 * What a turn streams back: the session it runs in, the model's thinking (its reasoning, or a
 * summary of it, where the backend shows it), text, a tool used, and the result; and, first,
 * where a turn was picked up somewhere else, each move that took it there (`Moved`: from where to
 * where, by account or place, and the failure that moved it). Only the engine writes `Moved`.
 *
 * @since 0.1.0
 * @category models
 */
export type Event = Data.TaggedEnum<{
  SessionStarted: { readonly sessionId: string }
  Thinking: { readonly text: string }
  Text: { readonly text: string }
  ToolUse: { readonly name: string; readonly input: unknown }
  Result: { readonly text: string; readonly usage: Usage; readonly model?: string | undefined }
  Moved: {
    readonly from: Place.Place
    readonly to: Place.Place
    readonly by: "account" | "place"
    readonly failure: Failure.Failure
  }
}>

/**
 * Makes and matches {@link Event}s.
 *
 * @since 0.1.0
 * @category constructors
 */
export const Event = Data.taggedEnum<Event>()

/**
 * Whether an event is real content, which commits the turn to the place that sent it. Session
 * events before it may be buffered; nothing after it is ever replayed. Any sign of life from the
 * model is content: thinking as much as text, a tool call or the result, so a model that thinks
 * before it writes meets the first byte's limit and keeps the idle limit from running out. A
 * streamed turn hands its thinking to the caller as it comes, so thinking commits it: a move
 * after it would show the caller a second place's answer after the first place's thoughts.
 * An empty text (an opening frame, a keep-alive delta) is not content. A turn answered whole
 * commits nowhere before it ends: nothing of it reached the caller.
 *
 * @since 0.1.0
 * @category guards
 */
export const isContent = (event: Event): boolean =>
  event._tag === "Text" ? event.text.length > 0 : event._tag !== "SessionStarted" && event._tag !== "Moved"

/**
 * One prompt and the answer it got.
 *
 * @since 0.1.0
 * @category models
 */
export interface Exchange {
  readonly prompt: string
  readonly answer: string
}

/**
 * What a turn sends: the prompt, and the exchanges of the conversation so far, oldest first.
 * `prefill`, sent only to a place that {@link Model.continues}, is the answer already delivered
 * to the caller by a place that failed: the place continues from it (an assistant prefill), and
 * its events carry only what comes after it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Prompt {
  readonly text: string
  readonly history: ReadonlyArray<Exchange>
  readonly prefill?: string | undefined
}

/**
 * How long a prompt is, in tokens, estimated at four characters a token.
 *
 * @since 0.1.0
 * @category utils
 */
export const tokens = (prompt: Prompt): number =>
  Math.ceil(
    prompt.history.reduce(
      (sum, exchange) => sum + exchange.prompt.length + exchange.answer.length,
      prompt.text.length
    ) /
      4
  )

/**
 * A model a backend runs: its name, its context window in tokens where known, the provider
 * that serves it (the CLI's own name when not said), and whether it `continues` an answer from a
 * {@link Prompt.prefill} (an assistant prefill; the backend's `continues` when not said).
 *
 * @since 0.1.0
 * @category models
 */
export interface Model {
  readonly name: string
  readonly contextWindow?: number | undefined
  readonly provider?: string | undefined
  readonly continues?: boolean | undefined
}

/**
 * What a backend can do: be told "no web search", be given callbacks, resume a session by its id,
 * continue an answer from a prefill (`continues`, false when not said), and the models it runs.
 *
 * @since 0.1.0
 * @category models
 */
export interface Capabilities extends Settings.Honours {
  readonly resume: boolean
  readonly continues?: boolean | undefined
  readonly models: ReadonlyArray<Model>
}

/**
 * What kind of place a backend runs: an HTTP API (a quick first token) or an agent CLI (a slow
 * start-up, thinking as a sign of life). Each kind has its own first-byte and stall limits.
 *
 * @since 0.2.0
 * @category models
 */
export type Kind = "http" | "cli"

/**
 * What bounds one attempt, as times on the Clock (epoch milliseconds): `by`, when the answer must
 * have started (the first byte's limit, or the send ceiling or the deadline if sooner); `whole`,
 * when all of it must be there (the send ceiling or the turn's deadline); and `deadline`, the
 * turn's; `stall`, the longest quiet once content began (milliseconds), where the agent sets one.
 * A reply that cannot tell when its first content came counts the whole reply by `by`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Limits {
  readonly by: number
  readonly whole: number
  readonly deadline: number
  /** How long the answer may send nothing once its content began, in milliseconds (the kind's stall); none when not set. */
  readonly stall?: number | undefined
}

/**
 * A session open at a place: its id (what a resume names) and its turns.
 *
 * - `turn` answers with a stream of events.
 * - `reply`, where the backend has it, answers the same turn whole, without a stream: all its
 *   events at once, or a failure that delivered nothing (so the turn may still move on). An agent's
 *   `reply` uses it, which spares a stream's cost on every turn.
 * - `keepsLimits`: the reply keeps `limits` by itself (a Timeout failure when it cannot), so the
 *   engine does not race it with a timer of its own. A reply that does not keep them is used
 *   only by an agent with no first-byte limit and no watchdog (the engine times it by the send
 *   ceiling and the deadline); other agents read the stream, which sees the first content come.
 * - `keepsConversation`: the backend holds the conversation itself (a CLI resuming its session by
 *   id), so the agent keeps no exchanges for it and its prompts' history stays empty.
 *
 * @since 0.1.0
 * @category models
 */
export interface Session {
  readonly id: string
  readonly turn: (prompt: Prompt) => Stream.Stream<Event, Failure.Failure>
  readonly reply?:
    | ((prompt: Prompt, limits: Limits) => Effect.Effect<ReadonlyArray<Event>, Failure.Failure>)
    | undefined
  readonly keepsLimits?: boolean | undefined
  readonly keepsConversation?: boolean | undefined
}

/**
 * The answer events carry: the result's text, or the text events joined when there is no result.
 *
 * @since 0.1.0
 * @category getters
 */
export const textOf = (events: Iterable<Event>): string => {
  let text = ""
  for (const event of events) {
    if (event._tag === "Result") return event.text
    if (event._tag === "Text") text += event.text
  }
  return text
}

/**
 * How a session is opened: `resume` names the conversation to pick up.
 *
 * @since 0.1.0
 * @category models
 */
export interface Opening {
  readonly resume?: string | undefined
}

/**
 * A backend. `kind` is `"http"` for an HTTP API, `"cli"` (the default) for an agent CLI. `open` is scoped: the session (a process, a connection) lives as long as the scope.
 * `check` is a liveness probe, where the backend has one.
 *
 * @since 0.1.0
 * @category models
 */
export interface Backend {
  readonly cli: string
  /** The kind of place it runs: `"cli"` when not said. */
  readonly kind?: Kind | undefined
  readonly capabilities: Capabilities
  readonly open: (
    place: Place.Place,
    account: Option.Option<Account.Account>,
    settings: Settings.Settings,
    opening: Opening
  ) => Effect.Effect<Session, Failure.Failure, Scope.Scope>
  readonly check?: ((place: Place.Place) => Effect.Effect<void, Failure.Failure>) | undefined
}

/**
 * The model a place names, as its backend describes it.
 *
 * @since 0.1.0
 * @category models
 */
export const modelAt = (backend: Backend, place: Place.Place): Model =>
  backend.capabilities.models.find((model) => model.name === place.model) ?? { name: place.model }

/**
 * Whether a place's model continues an answer from a prefill: the model's word, else its backend's.
 *
 * @since 0.2.0
 * @category models
 */
export const continuesAt = (backend: Backend, place: Place.Place): boolean =>
  modelAt(backend, place).continues ?? backend.capabilities.continues ?? false

/**
 * The provider serving a place's model.
 *
 * @since 0.1.0
 * @category models
 */
export const providerOf = (backend: Backend, place: Place.Place): string =>
  modelAt(backend, place).provider ?? backend.cli

/**
 * What the {@link Backends} service holds: the backends by CLI name, and all of them.
 *
 * @since 0.1.0
 * @category models
 */
export interface Service {
  readonly get: (cli: string) => Option.Option<Backend>
  readonly all: ReadonlyArray<Backend>
}

/**
 * The backends a program can run turns with, by CLI name.
 *
 * @since 0.1.0
 * @category services
 */
export class Backends extends Context.Service<Backends, Service>()("@fallback/core/Backends") {
  /**
   * The given backends; a later one of the same CLI wins.
   *
   * @since 0.1.0
   */
  static readonly layer = (backends: ReadonlyArray<Backend>): Layer.Layer<Backends> => {
    const byCli = new Map(backends.map((backend) => [backend.cli, backend]))
    return Layer.succeed(Backends, Backends.of({ get: (cli) => Option.fromNullishOr(byCli.get(cli)), all: backends }))
  }
}
