/**
 * Claude Code (`claude -p`) as a backend. An account's config folder is `CLAUDE_CONFIG_DIR`; its own retrying is off (`CLAUDE_CODE_MAX_RETRIES=0`) unless asked for, and its `api_retry` progress ends a turn as soon as it names the failure.
 *
 * @since 0.1.0
 */
import type * as Backend from "@fallback/core/Backend"
import type * as Place from "@fallback/core/Place"
import type * as Cli from "./Cli.js"
import * as backend from "./internal/cli/backend.js"
import * as internal from "./internal/cli/claude.js"

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
 * Judges a finished run: the turn that landed, or its failure. The CLI's own success marker (`result` with `is_error: false`)
 * is the only success, never exit 0 alone; failures are read from the exit status, the signal,
 * the error events and stderr, never from the answer's text.
 *
 * @since 0.1.0
 * @category utils
 */
export const readOutcome: (finished: Cli.Finished, place: Place.Place) => Cli.Outcome = internal.readOutcome

/**
 * A reader of one run's `stream-json` output, line by line: the events each line gives as it
 * comes (none for a line that is not an event): the session, the model's thinking and text piece
 * by piece, the tools it calls.
 *
 * @since 0.1.0
 * @category utils
 */
export const events: () => (line: string) => ReadonlyArray<Backend.Event> = internal.events

/**
 * The backend.
 *
 * @example
 * ```ts
 * import { Claude } from "@fallback/backends"
 * import { Backend } from "@fallback/core"
 *
 * // the places Claude.make() serves are claude[@ACCOUNT]/MODEL; its CLI is found on PATH, or at bin
 * const backends = Backend.Backends.layer([Claude.make({ bin: "/usr/local/bin/claude" })])
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Cli.Options = {}): Backend.Backend => backend.make(internal.description, options)
