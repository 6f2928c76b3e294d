/**
 * The Gemini CLI (`gemini -p`) as a backend. An account's config folder is `GEMINI_CLI_HOME`; its own retrying is turned off (`general.maxAttempts` 1) in the account's config dir, or, for the user's own `~/.gemini`, in a home fallback keeps whose `.gemini` links to the user's entries with its own copy of the settings (no file of the user's is written), and its \"Attempt N failed\" progress ends a turn as soon as it names the failure; it cannot be told not to search the web for one turn; its exit status carries the HTTP status modulo 256.
 *
 * @since 0.1.0
 */
import type * as Backend from "@fallback/core/Backend"
import type * as Place from "@fallback/core/Place"
import type * as Cli from "./Cli.js"
import * as backend from "./internal/cli/backend.js"
import * as internal from "./internal/cli/gemini.js"

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
 * Judges a finished run: the turn that landed, or its failure. The CLI's own success marker (`result` with `status: "success"`)
 * is the only success, never exit 0 alone; failures are read from the exit status, the signal,
 * the error events and stderr, never from the answer's text.
 *
 * @since 0.1.0
 * @category utils
 */
export const readOutcome: (finished: Cli.Finished, place: Place.Place) => Cli.Outcome = internal.readOutcome

/**
 * Options of the gemini backend: every CLI's, and `home`, the home fallback keeps for gemini when an
 * account has no config dir of its own (`~/.config/fallback/homes/gemini` unless said).
 *
 * @since 0.1.0
 * @category models
 */
export type Options = internal.Options

/**
 * The backend.
 *
 * @example
 * ```ts
 * import { Gemini } from "@fallback/backends"
 * import { Backend } from "@fallback/core"
 *
 * // the places Gemini.make() serves are gemini[@ACCOUNT]/MODEL; its CLI is found on PATH, or at bin
 * const backends = Backend.Backends.layer([Gemini.make({ bin: "/usr/local/bin/gemini" })])
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options = {}): Backend.Backend => backend.make(internal.description(options), options)
