/**
 * @since 0.1.0
 */
export * as RedisHealth from "./RedisHealth.js"
