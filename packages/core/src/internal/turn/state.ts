import * as Chunk from "effect/Chunk"
import type * as Clock from "effect/Clock"
import type * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Scope from "effect/Scope"
import type * as Agent from "../../Agent.js"
import type * as Backend from "../../Backend.js"
import type { Channel } from "../../Notice.js"
import * as Place from "../../Place.js"

/**
 * The state of an agent and of its turn in progress, and the only functions that change it:
 * every other part of the engine reads these records and asks this module to write them.
 */

/**
 * What an agent carries from turn to turn: where it is, the exchanges of its conversation there,
 * and the conversation (session id) running at each place it has a session at.
 *
 * @internal
 */
export interface State {
  readonly at: Place.Place
  readonly history: Chunk.Chunk<Backend.Exchange>
  readonly conversations: ReadonlyMap<string, string>
}

/**
 * One turn in progress: its scope, its budget and what it has spent, and the history it sends
 * (the agent's, until a move to another place starts it fresh or compaction shortens it; the
 * agent keeps it only once an answer is whole).
 *
 * @internal
 */
export interface Run {
  /** Where an attempt's stream lives; a turn answered whole gets one only once it needs it. */
  readonly scope: Scope.Scope | undefined
  /** The scope a turn answered whole made for itself, closed when it ends. */
  readonly made: Scope.Closeable | undefined
  readonly startedAt: number
  /** The turn's clock (the TestClock under test), read without an effect on every step. */
  readonly clock: Clock.Clock
  /** The turn's fiber's services: the metric registry its telemetry is kept in. */
  readonly services: Context.Context<never>
  readonly deadline: number
  readonly attempts: number
  /** The place whose trial this turn took and has not yet answered or failed: given back if the turn ends first. */
  readonly trial: Place.Place | undefined
  readonly history: Chunk.Chunk<Backend.Exchange>
  readonly options: Agent.Options
  readonly notices: Channel
  readonly state: State
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] }

interface Writable extends Mutable<Omit<State, "conversations">> {
  readonly conversations: Map<string, string>
}

const agentOf = (state: State) => state as Writable
const turnOf = (run: Run) => run as Mutable<Run>

/** @internal */
export const initial = (origin: Place.Place): State => ({
  at: origin,
  history: Chunk.empty(),
  conversations: new Map()
})

/**
 * A turn starting at `startedAt`, with the agent's history and a fresh budget.
 *
 * @internal
 */
export const start = (
  state: State,
  options: Agent.Options,
  notices: Channel,
  clock: Clock.Clock,
  services: Context.Context<never>,
  startedAt: number,
  scope: Scope.Scope | undefined
): Run => ({
  scope,
  made: undefined,
  startedAt,
  clock,
  services,
  deadline: startedAt + Duration.toMillis(options.budget.deadline),
  attempts: 0,
  trial: undefined,
  history: state.history,
  options,
  notices,
  state
})

/**
 * Where an agent's next turn starts: where it moved to, or its own place again.
 *
 * @internal
 */
export const startOf = (state: State, options: Agent.Options, origin: Place.Place): Place.Place =>
  options.moved === "stays" ? state.at : origin

/**
 * The turn answered at `place` after moving there: an agent that moved stays moved.
 *
 * @internal
 */
export const movedTo = (run: Run, place: Place.Place): void => {
  if (run.options.moved === "stays") agentOf(run.state).at = place
}

/**
 * One more request made this turn.
 *
 * @internal
 */
export const requested = (run: Run): void => {
  turnOf(run).attempts += 1
}

/**
 * Whether the turn's budget is spent at `now`: its requests made, or its deadline passed.
 *
 * @internal
 */
export const spent = (run: Run, now: number): boolean =>
  run.attempts >= run.options.budget.attempts || now >= run.deadline

/**
 * The conversation a session runs at a place: what a resume names there.
 *
 * @internal
 */
export const sessionAt = (run: Run, place: Place.Place): string | undefined =>
  run.state.conversations.get(Place.format(place))

/**
 * Notes the conversation a session at `place` runs (its id, or the one a SessionStarted event named).
 *
 * @internal
 */
export const noteSession = (run: Run, place: Place.Place, id: string): void => {
  const at = Place.format(place)
  if (run.state.conversations.get(at) !== id) agentOf(run.state).conversations.set(at, id)
}

/**
 * A whole answer: its exchange joins the conversation the turn sent, which the agent keeps
 * from then on; a backend that keeps the conversation itself keeps it alone.
 *
 * @internal
 */
export const answered = (run: Run, prompt: string, answer: string, keepsConversation: boolean | undefined): void => {
  if (keepsConversation === true) return
  agentOf(run.state).history = Chunk.append(run.history, { prompt, answer })
}

/**
 * The turn reached a place by a move: another place starts the conversation fresh.
 *
 * @internal
 */
export const arrived = (run: Run, move: "start" | "account" | "place"): void => {
  if (move === "place") turnOf(run).history = Chunk.empty()
}

/**
 * The history the turn sends, compacted to `exchanges`.
 *
 * @internal
 */
export const compacted = (run: Run, exchanges: Iterable<Backend.Exchange>): void => {
  turnOf(run).history = Chunk.fromIterable(exchanges)
}

/**
 * The oldest exchange the turn sends dropped; false when there is none to drop.
 *
 * @internal
 */
export const trimmed = (run: Run): boolean => {
  if (Chunk.isEmpty(run.history)) return false
  turnOf(run).history = Chunk.drop(run.history, 1)
  return true
}

/**
 * The trial a place handed out to this turn, held until the place answers or fails (`undefined`).
 *
 * @internal
 */
export const holdTrial = (run: Run, place: Place.Place | undefined): void => {
  turnOf(run).trial = place
}

/**
 * The scope the turn's streams live in, made (and closed by the turn's end) when it has none.
 *
 * @internal
 */
export const ownScope = (run: Run): Effect.Effect<void> =>
  run.scope !== undefined ? Effect.void : Effect.map(Scope.make(), (scope) => {
    const turn = turnOf(run)
    turn.scope = turn.made = scope
  })
