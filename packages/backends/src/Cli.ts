/**
 * What every agent-CLI backend shares: how a finished run is written down for judging, what a
 * judged run is, and the options a CLI backend takes.
 *
 * @since 0.1.0
 */
import type * as Backend from "@fallback/core/Backend"
import type * as Failure from "@fallback/core/Failure"
import type * as Settings from "@fallback/core/Settings"
import type * as Duration from "effect/Duration"
import type * as Result from "effect/Result"

/**
 * A run of a CLI once it has ended: its exit status or the signal that ended it, all it printed,
 * and, for a CLI that keeps one (antigravity), what it wrote to its own log during the run.
 * `readOutcome` of each CLI judges one.
 *
 * @since 0.1.0
 * @category models
 */
export interface Finished {
  readonly exitCode: number | null
  readonly signal: string | null
  readonly stdout: string
  readonly stderr: string
  readonly log?: string | undefined
}

/**
 * A turn that landed: the session it ran in (what a resume names) and its events, ending with
 * the result.
 *
 * @since 0.1.0
 * @category models
 */
export interface Turned {
  readonly sessionId: string | undefined
  readonly events: ReadonlyArray<Backend.Event>
}

/**
 * How a finished run is judged: the turn, or the failure it ended with.
 *
 * @since 0.1.0
 * @category models
 */
export type Outcome = Result.Result<Turned, Failure.Failure>

/**
 * Options of a CLI backend.
 *
 * - `bin`: the binary to run, a path (else the CLI's name, looked up on `PATH`).
 * - `cwd`: the folder turns run in (else the current one).
 * - `env`: plain settings added to every turn's environment, after the account's.
 * - `grace`: how long the process group has between SIGTERM and SIGKILL (2 s).
 * - `retries`: leave the CLI's own retrying on (off by default: the step owns retrying).
 * - `record`: given every finished run before it is judged, as recorded-output tests keep it.
 * - `models`: models it runs beyond the Catalogue's for its CLI (the config's `clis.NAME.models`).
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly bin?: string | undefined
  readonly cwd?: string | undefined
  readonly env?: Readonly<Record<string, string>> | undefined
  readonly grace?: Duration.Input | undefined
  readonly retries?: boolean | undefined
  readonly record?: ((finished: Finished) => void) | undefined
  readonly models?: ReadonlyArray<string> | undefined
}

/**
 * One turn as a CLI is told it: the prompt, the model, the session to resume (none for a new
 * one) and the agent's settings.
 *
 * @since 0.1.0
 * @category models
 */
export interface Turn {
  readonly prompt: string
  readonly model: string
  readonly resume: string | undefined
  readonly settings: Settings.Settings
}
