import * as Chunk from "effect/Chunk"
import type * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import type * as Scope from "effect/Scope"
import type * as Agent from "../Agent.js"
import type * as Backend from "../Backend.js"
import type { Channel } from "../Notice.js"
import type * as Place from "../Place.js"

/**
 * What an agent carries from turn to turn: where it is, the exchanges of its conversation there,
 * and the conversation (session id) running at each place it has a session at.
 *
 * @internal
 */
export interface State {
  at: Place.Place
  history: Chunk.Chunk<Backend.Exchange>
  readonly conversations: Map<string, string>
}

/** @internal */
export const initial = (origin: Place.Place): State => ({
  at: origin,
  history: Chunk.empty(),
  conversations: new Map()
})

/**
 * One turn in progress: its scope, its budget and what it has spent, and the history it sends
 * (the agent's, until a move to another place starts it fresh or compaction shortens it; the
 * agent keeps it only once an answer is whole).
 *
 * @internal
 */
export interface Run {
  /** Where an attempt's stream lives; a turn answered whole gets one only once it needs it. */
  scope: Scope.Scope | undefined
  /** The scope a turn answered whole made for itself, closed when it ends. */
  made: Scope.CloseableScope | undefined
  readonly startedAt: number
  /** The turn's clock (the TestClock under test), read without an effect on every step. */
  readonly clock: Clock.Clock
  deadline: number
  attempts: number
  /** The place whose trial this turn took and has not yet answered or failed: given back if the turn ends first. */
  trial: Place.Place | undefined
  history: Chunk.Chunk<Backend.Exchange>
  readonly options: Agent.Options
  readonly notices: Channel
  readonly state: State
}

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
  startedAt: number,
  scope: Scope.Scope | undefined
): Run => ({
  scope,
  made: undefined,
  startedAt,
  clock,
  deadline: startedAt + Duration.toMillis(options.budget.deadline),
  attempts: 0,
  trial: undefined,
  history: state.history,
  options,
  notices,
  state
})

/**
 * Whether the turn's budget is spent at `now`: its requests made, or its deadline passed.
 *
 * @internal
 */
export const spent = (run: Run, now: number): boolean =>
  run.attempts >= run.options.budget.attempts || now >= run.deadline
