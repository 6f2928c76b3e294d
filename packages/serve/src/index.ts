/**
 * @since 1.0.0
 */
export * as Gateway from "./Gateway.js"
