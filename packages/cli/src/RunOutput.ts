/**
 * What `fallback run --json` writes: one JSON object a line on stdout, each event of the turn,
 * each notice of what recovery did, then the outcome.
 *
 * @since 0.1.0
 */
import * as internal from "./internal/runJson.js"

/**
 * One line of `fallback run --json`, told apart by its `type`: `session`, `thinking`, `text`,
 * `tool`, `result`, `moved`, `notice` (a `Malformed` one says how many events were `skipped`), and
 * last `outcome` (`ok`, the exit `status`, the `place` that answered with its `model` and `usage`,
 * or the failure `kind` and `message`; and the `moves` the turn made, oldest first). `--json`
 * answers whole: the answer's lines come once the turn has all of it.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Line = internal.Line

/**
 * One line of `fallback run --json`, decoded.
 *
 * @since 0.1.0
 * @category models
 */
export type Line = internal.Line
