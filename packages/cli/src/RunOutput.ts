/**
 * What `fallback run --json` writes: one JSON object a line on stdout, each event of the turn,
 * each notice of what recovery did, then the outcome.
 *
 * @since 0.1.0
 */
import * as internal from "./internal/runJson.js"

/**
 * One line of `fallback run --json`, told apart by its `type`: `session`, `text`, `tool`,
 * `result`, `notice`, and last `outcome` (`ok`, the exit `status`, the `place` that answered or
 * the failure `kind` and `message`).
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
