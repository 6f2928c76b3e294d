/**
 * @since 1.1.0
 */
export * as Gateway from "./Gateway.js"
