/**
 * @since 0.1.0
 */

/**
 * A scripted backend that plays outages on cue, and counts what it was asked.
 *
 * @since 0.1.0
 */
export * as Scripted from "./Scripted.js"
