/**
 * What a turn tells the program's tracer, metrics and loggers: the names it writes
 * (`attributes`), its metrics, its spans, and what each notice adds.
 *
 * @internal
 */
export * from "./attributes.js"
export * from "./metrics.js"
export * from "./notices.js"
export * from "./spans.js"
