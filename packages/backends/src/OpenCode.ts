/**
 * opencode (`opencode run`) as a backend. An account's config folder is its data folder (`XDG_DATA_HOME`); the provider setup travels in `OPENCODE_CONFIG_CONTENT`. It has no knob for its own retrying and prints nothing while it retries.
 *
 * @since 0.1.0
 */
import type * as Backend from "@fallback/core/Backend"
import type * as Place from "@fallback/core/Place"
import type * as Cli from "./Cli.js"
import * as backend from "./internal/cli/backend.js"
import * as internal from "./internal/cli/opencode.js"

/**
 * The command line that installs it.
 *
 * @since 0.1.0
 * @category constants
 */
export const install: string = internal.install

/**
 * The arguments of one non-interactive turn with machine-readable output; the prompt is one
 * argument after `--`, never read by a shell.
 *
 * @since 0.1.0
 * @category utils
 */
export const argv: (turn: Cli.Turn) => ReadonlyArray<string> = internal.argv

/**
 * Judges a finished run: the turn that landed, or its failure. The CLI's own success marker (`step_finish` with no `error` event)
 * is the only success, never exit 0 alone; failures are read from the exit status, the signal,
 * the error events and stderr, never from the answer's text.
 *
 * @since 0.1.0
 * @category utils
 */
export const readOutcome: (finished: Cli.Finished, place: Place.Place) => Cli.Outcome = internal.readOutcome

/**
 * The backend.
 *
 * @example
 * ```ts
 * import { OpenCode } from "@fallback/backends"
 * import { Backend } from "@fallback/core"
 *
 * // the places OpenCode.make() serves are opencode[@ACCOUNT]/MODEL; its CLI is found on PATH, or at bin
 * const backends = Backend.Backends.layer([OpenCode.make({ bin: "/usr/local/bin/opencode" })])
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options = {}): Backend.Backend => backend.make(internal.description(options), options)

/**
 * Options of the opencode backend: its config (providers, models), besides the options of every
 * CLI.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options extends Cli.Options {
  readonly config?: object | undefined
}
