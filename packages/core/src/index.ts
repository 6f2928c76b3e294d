/**
 * @since 0.1.0
 */

/**
 * The accounts of each CLI, in the order a turn walks them.
 *
 * @since 0.1.0
 */
export * as Accounts from "./Accounts.js"

/**
 * The config file: steps and accounts as JSON, read and written safely.
 *
 * @since 0.1.0
 */
export * as ConfigFile from "./ConfigFile.js"

/**
 * What went wrong with a turn, classified: one tagged error per kind.
 *
 * @since 0.1.0
 */
export * as Failure from "./Failure.js"

/**
 * The breaker preset's ordered model list from `LLM_FALLBACK_MODELS`, checked against the catalogue.
 *
 * @since 0.1.0
 */
export * as ModelList from "./ModelList.js"

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

/**
 * What is written against a place: where its turns go next, and how it tries again first.
 *
 * @since 0.1.0
 */
export * as Steps from "./Steps.js"
