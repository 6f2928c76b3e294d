/**
 * @since 0.1.0
 */

/**
 * What went wrong with a turn, classified: one tagged error per kind.
 *
 * @since 0.1.0
 */
export * as Failure from "./Failure.js"

/**
 * Where a turn runs: `CLI[@ACCOUNT]/MODEL`.
 *
 * @since 0.1.0
 */
export * as Place from "./Place.js"

/**
 * The six wait policies and the retrying a step asks for.
 *
 * @since 0.1.0
 */
export * as Policy from "./Policy.js"
