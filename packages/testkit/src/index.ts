/**
 * @since 0.1.0
 */

/**
 * Counting the fibers an effect starts: what a test or a bench checks when a turn must fork none.
 *
 * @since 0.1.0
 */
export * as Fibers from "./Fibers.js"

/**
 * A mock model provider on 127.0.0.1 that speaks the vendors' APIs and plays their faults.
 *
 * @since 0.1.0
 */
export * as MockProvider from "./MockProvider.js"

/**
 * A redis-server of a test's own, on a free loopback port, saving nothing.
 *
 * @since 0.1.0
 */
export * as RedisServer from "./RedisServer.js"

/**
 * A scripted backend that plays outages on cue, and counts what it was asked.
 *
 * @since 0.1.0
 */
export * as Scripted from "./Scripted.js"
