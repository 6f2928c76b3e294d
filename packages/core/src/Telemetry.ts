/**
 * What a recovering turn tells the observability tools a program already uses, through Effect's
 * tracer, `Metric` and `Logger`:
 *
 * - **Spans**, when the program installs a tracer (`@effect/opentelemetry`'s `NodeSdk` or OTLP
 *   layer, or any `Tracer`): one per turn (`invoke_agent fallback`), a child per attempt
 *   (`chat MODEL`, kind client, with the HTTP client's spans inside it) and per wait
 *   (`fallback.wait`, as long as the wait), and the turn's moves, skips and stop as events on it.
 *   Attributes follow the OpenTelemetry GenAI conventions (`gen_ai.operation.name`,
 *   `gen_ai.provider.name`, `gen_ai.request.model`, `gen_ai.usage.*`, `error.type` = the failure's
 *   kind) plus fallback's own (`fallback.place`, `fallback.account` — the account's name, never
 *   a credential —, `fallback.attempt`, `fallback.move.by`, `fallback.wait_ms`, `fallback.outcome`).
 *   With no tracer installed no span is made, and a landing turn costs what it did without them.
 * - **Metrics**, always: the counters and histograms below, kept in the metric registry of the
 *   turn's context (`Metric.MetricRegistry`), read with `Metric.value`, or exported by an OTLP or
 *   Prometheus layer.
 * - **Logs**: every notice is also logged, with its annotations, to the loggers the program
 *   installed; Effect's own console logger is left out, so a program that installs nothing sees
 *   each notice once, on stderr, as the reference page has it.
 *
 * @since 0.1.0
 */
import type * as Effect from "effect/Effect"
import type * as Metric from "effect/Metric"
import * as internal from "./internal/telemetry/index.js"
import type { Channel, Notice } from "./Notice.js"

/**
 * The attribute names fallback writes on spans, metric series and log annotations.
 *
 * @since 0.1.0
 * @category constants
 */
export const attribute: typeof internal.attribute = internal.attribute

/**
 * The HTTP headers whose values a span shows (`content-type`, `content-length`, `date`,
 * `retry-after`, `x-ratelimit-*`, `anthropic-ratelimit-*`, `request-id`, trace context): inside an
 * attempt every other header of the HTTP client's spans is redacted, whatever tracer is installed,
 * so a key a provider echoes in a header of its own never reaches a collector.
 *
 * @since 0.1.0
 * @category constants
 */
export const keptHeader: RegExp = internal.keptHeader

/**
 * The names of the turn's span and of a wait's span; an attempt's span is named `chat MODEL`.
 *
 * @since 0.1.0
 * @category constants
 */
export const spanName: typeof internal.spanName = internal.spanName

/**
 * The name of the event each notice adds to the current span.
 *
 * @since 0.1.0
 * @category constants
 */
export const eventName: Readonly<Record<Notice["_tag"], string>> = internal.eventName

/**
 * `fallback.attempts`: requests turns made, by `fallback.place` and `fallback.outcome`
 * (`answered`, or the failure's kind).
 *
 * @since 0.1.0
 * @category constants
 */
export const attempts: Metric.Counter<number> = internal.attempts.metric

/**
 * `fallback.moves`: moves to another account or place, by the place moved from and
 * `fallback.move.by` (`account` or `place`).
 *
 * @since 0.1.0
 * @category constants
 */
export const moves: Metric.Counter<number> = internal.moves.metric

/**
 * `fallback.skips`: places passed over without a request, by place and `fallback.skip.why`
 * (`parked`, `cooling`, `trial`, `unhealthy`, `provider`, `window`).
 *
 * @since 0.1.0
 * @category constants
 */
export const skips: Metric.Counter<number> = internal.skips.metric

/**
 * `fallback.breaker.openings`: times a place's breaker opened, by place.
 *
 * @since 0.1.0
 * @category constants
 */
export const breakerOpenings: Metric.Counter<number> = internal.breakerOpenings.metric

/**
 * `fallback.breaker.parked`: by place, 1 once its breaker parks it, 0 once it answers again.
 *
 * @since 0.1.0
 * @category constants
 */
export const parked: Metric.Gauge<number> = internal.parked.metric

/**
 * `fallback.wait.duration` (s): waits started before going again at a place, by place and
 * `error.type`.
 *
 * @since 0.1.0
 * @category constants
 */
export const waits: Metric.Histogram<number> = internal.waits.metric

/**
 * `fallback.turn.time_to_first_content` (s): from a turn's start to its answer's first content,
 * by the turn's first place.
 *
 * @since 0.1.0
 * @category constants
 */
export const timeToFirstContent: Metric.Histogram<number> = internal.timeToFirstContent.metric

/**
 * `fallback.turn.duration` (s): whole turns, by the turn's first place and `fallback.outcome`.
 *
 * @since 0.1.0
 * @category constants
 */
export const turnDuration: Metric.Histogram<number> = internal.turnDuration.metric

/**
 * A notice, observed: counted, an event on the current span, and logged to the loggers the
 * program installed. Agents observe every notice they publish; this is for notices of a
 * program's own.
 *
 * @since 0.1.0
 * @category combinators
 */
export const noticed: (notice: Notice) => Effect.Effect<void> = internal.noticed

/**
 * A notice channel whose notices are also {@link noticed}.
 *
 * @since 0.1.0
 * @category combinators
 */
export const observed: (channel: Channel) => Channel = internal.observed
