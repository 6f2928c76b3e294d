/**
 * @since 0.1.0
 */

/**
 * The `fallback` command line.
 *
 * @since 0.1.0
 */
export * as Cli from "./Cli.js"
