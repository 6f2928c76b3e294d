/**
 * Antigravity as a backend. It is not on npm, so its invocation is taken to be the Gemini CLI's
 * (it keeps its files under `~/.gemini`): `-m`, stream-json output, `--resume`, the prompt as one
 * `--prompt=` argument. When a turn fails it often says only "Agent execution terminated due to
 * error"; the HTTP status is then read from what it wrote to `~/.gemini/antigravity-cli/log/`
 * during the run (under `GEMINI_CLI_HOME` for an account with a config folder).
 *
 * @since 0.1.0
 */
import type * as Backend from "@fallback/core/Backend"
import type * as Place from "@fallback/core/Place"
import type * as Cli from "./Cli.js"
import * as internal from "./internal/cli/antigravity.js"
import * as backend from "./internal/cli/backend.js"

/**
 * How to install it.
 *
 * @since 0.1.0
 * @category constants
 */
export const install: string = internal.install

/**
 * The arguments of one non-interactive turn; the prompt is one `--prompt=` argument, never read
 * by a shell.
 *
 * @since 0.1.0
 * @category utils
 */
export const argv: (turn: Cli.Turn) => ReadonlyArray<string> = internal.argv

/**
 * Judges a finished run: what its streams say first, as for the Gemini CLI; when they name no
 * kind, the last HTTP error status in `log` (what it wrote to its log folder during the run).
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
 * import { Antigravity } from "@fallback/backends"
 * import { Backend } from "@fallback/core"
 *
 * // the places Antigravity.make() serves are antigravity[@ACCOUNT]/MODEL; its CLI is found on PATH, or at bin
 * const backends = Backend.Backends.layer([Antigravity.make({ bin: "/usr/local/bin/antigravity" })])
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Cli.Options = {}): Backend.Backend => backend.make(internal.description, options)
