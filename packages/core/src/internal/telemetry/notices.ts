import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as References from "effect/References"
import * as Tracer from "effect/Tracer"
import { type Channel, format, type Notice } from "../../Notice.js"
import * as Place from "../../Place.js"
import { redact } from "../secret.js"
import { attribute, eventName } from "./attributes.js"
import * as metrics from "./metrics.js"
import { tracing } from "./spans.js"

const masked = (annotations: Record<string, string | number>): Record<string, string | number> => {
  for (const key in annotations) {
    const value = annotations[key]
    if (typeof value === "string") annotations[key] = redact(value)
  }
  return annotations
}

const annotationsOf = (notice: Notice): Record<string, string | number> => {
  switch (notice._tag) {
    case "Retrying":
      return {
        [attribute.place]: Place.format(notice.place),
        [attribute.errorType]: notice.failure._tag,
        [attribute.waitMs]: Duration.toMillis(notice.wait)
      }
    case "Moving":
      return {
        [attribute.place]: Place.format(notice.from),
        [attribute.moveTo]: Place.format(notice.to),
        [attribute.moveBy]: notice.by,
        [attribute.errorType]: notice.failure._tag
      }
    case "Skipping":
      return { [attribute.place]: Place.format(notice.place), [attribute.skipWhy]: notice.why }
    case "Compacting":
      return { [attribute.place]: Place.format(notice.place), [attribute.errorType]: notice.failure._tag }
    case "Fresh":
    case "Malformed":
      return { [attribute.place]: Place.format(notice.place) }
    case "Probing":
    case "Stalled":
      return { [attribute.place]: Place.format(notice.place), [attribute.waitMs]: Duration.toMillis(notice.quiet) }
    case "Stopping":
      return {
        [attribute.place]: Place.format(notice.place),
        [attribute.errorType]: notice.failure._tag,
        [attribute.reason]: notice.reason
      }
    case "Sharing":
      return {
        "fallback.health.store": notice.store,
        "fallback.health.shared": String(notice.shared),
        [attribute.reason]: notice.reason
      }
  }
}

const counted = (services: Context.Context<never>, notice: Notice) => {
  if (notice._tag === "Moving") metrics.record(services, metrics.moves, 1, notice.from, attribute.moveBy, notice.by)
  else if (notice._tag === "Skipping") {
    metrics.record(services, metrics.skips, 1, notice.place, attribute.skipWhy, notice.why)
  }
}

/** Effect's own loggers: to the console, and to spans. */
const own: ReadonlySet<Logger.Logger<unknown, any>> = new Set([Logger.defaultLogger, Logger.tracerLogger])

/** The loggers a program installed, worked out again only when the set of loggers changes. */
let lastLoggers: ReadonlySet<Logger.Logger<unknown, any>> | undefined = undefined
let lastInstalled: ReadonlySet<Logger.Logger<unknown, any>> = new Set()
const installed = (loggers: ReadonlySet<Logger.Logger<unknown, any>>) => {
  if (loggers !== lastLoggers) {
    lastInstalled = new Set([...loggers].filter((logger) => !own.has(logger)))
    lastLoggers = loggers
  }
  return lastInstalled
}

/**
 * A notice, observed: counted (moves, skips), an event on the current span when spans go
 * somewhere, and a log line with its annotations for the loggers a program installed. Effect's
 * own console logger is left out: a program that installs nothing sees each notice once, as its
 * channel writes it.
 *
 * @internal
 */
export const noticed = (notice: Notice): Effect.Effect<void> =>
  Effect.withFiber((fiber) => {
    counted(fiber.context, notice)
    const span = Context.getOrUndefined(fiber.context, Tracer.ParentSpan)
    const traced = span?._tag === "Span" && tracing(fiber)
    const loggers = installed(fiber.getRef(References.CurrentLoggers))
    if (!traced && loggers.size === 0) return Effect.void
    const annotations = masked(annotationsOf(notice))
    const text = redact(format(notice))
    if (traced) {
      span.event(eventName[notice._tag], fiber.getRef(Clock.Clock).currentTimeNanosUnsafe(), {
        ...annotations,
        [attribute.notice]: text
      })
    }
    if (loggers.size === 0) return Effect.void
    return (notice._tag === "Stopping" ? Effect.logWarning : Effect.logInfo)(text).pipe(
      Effect.annotateLogs({ ...annotations, [attribute.notice]: notice._tag }),
      Effect.provideService(References.CurrentLoggers, loggers)
    )
  })

/**
 * A notice channel whose notices are also observed ({@link noticed}).
 *
 * @internal
 */
export const observed = (channel: Channel): Channel => ({
  publish: (notice) => Effect.andThen(channel.publish(notice), noticed(notice)),
  watch: channel.watch
})
