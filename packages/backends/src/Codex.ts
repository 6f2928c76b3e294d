/**
 * The Codex CLI (`codex exec`) as a backend. An account's config folder is `CODEX_HOME`; a `provider` points it at a Responses API with its HTTP and stream retries off unless asked for, and its "Reconnecting" progress ends a turn as soon as it names the failure.
 *
 * @since 0.1.0
 */
import type * as Backend from "@fallback/core/Backend"
import type * as Place from "@fallback/core/Place"
import type * as Cli from "./Cli.js"
import * as backend from "./internal/cli/backend.js"
import * as internal from "./internal/cli/codex.js"

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
export const argv: (turn: Cli.Turn, options: Options) => ReadonlyArray<string> = internal.argv

/**
 * Judges a finished run: the turn that landed, or its failure. The CLI's own success marker (`turn.completed`)
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
 * import { Codex } from "@fallback/backends"
 * import { Backend } from "@fallback/core"
 *
 * // the places Codex.make() serves are codex[@ACCOUNT]/MODEL; its CLI is found on PATH, or at bin
 * const backends = Backend.Backends.layer([Codex.make({ bin: "/usr/local/bin/codex" })])
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options = {}): Backend.Backend => backend.make(internal.description(options), options)

/**
 * Options of the codex backend: a provider to point it at, besides the options of every CLI.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options extends Cli.Options {
  readonly provider?: Provider | undefined
}

/**
 * A model provider codex is pointed at: an id, its base URL (ending in `/v1`) and the variable
 * its key is read from.
 *
 * @since 0.1.0
 * @category models
 */
export type Provider = internal.Provider
