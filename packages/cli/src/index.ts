/**
 * @since 0.1.0
 */

/**
 * The `fallback` command line.
 *
 * @since 0.1.0
 */
export * as Cli from "./Cli.js"

/**
 * What `fallback run --json` writes, as a schema.
 *
 * @since 0.1.0
 */
export * as RunOutput from "./RunOutput.js"
