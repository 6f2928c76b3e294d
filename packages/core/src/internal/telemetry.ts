import * as Headers from "@effect/platform/Headers"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as DefaultServices from "effect/DefaultServices"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import * as FiberRef from "effect/FiberRef"
import * as HashSet from "effect/HashSet"
import * as Logger from "effect/Logger"
import * as Metric from "effect/Metric"
import * as MetricBoundaries from "effect/MetricBoundaries"
import * as MetricLabel from "effect/MetricLabel"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Tracer from "effect/Tracer"
import type * as Backend from "../Backend.js"
import type * as Failure from "../Failure.js"
import { type Channel, format, type Notice } from "../Notice.js"
import * as Place from "../Place.js"
import { redact } from "./secret.js"

/** @internal */
export const attribute = {
  operation: "gen_ai.operation.name",
  provider: "gen_ai.provider.name",
  system: "gen_ai.system",
  model: "gen_ai.request.model",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  errorType: "error.type",
  place: "fallback.place",
  account: "fallback.account",
  attempt: "fallback.attempt",
  attempts: "fallback.attempts",
  moveBy: "fallback.move.by",
  moveTo: "fallback.move.to",
  waitMs: "fallback.wait_ms",
  outcome: "fallback.outcome",
  answeredAt: "fallback.answered.place",
  notice: "fallback.notice",
  skipWhy: "fallback.skip.why",
  reason: "fallback.stop.reason"
} as const

/**
 * The HTTP headers whose values a span shows: those that say how a request went. Any other
 * header (one a provider echoes a key in, `www-authenticate`, …) is redacted in the HTTP client's
 * spans inside an attempt, and left out of what the command exports.
 *
 * @internal
 */
export const keptHeader =
  /^(?:content-type|content-length|content-encoding|date|retry-after|x-ratelimit-[a-z0-9-]+|anthropic-ratelimit-[a-z0-9-]+|x-request-id|request-id|traceparent|tracestate)$/i

/** Every header name {@link keptHeader} does not keep, as the HttpClient's span redaction reads it. */
const unkeptHeader = new RegExp(`^(?!${keptHeader.source.slice(1, -1)}$)`, "i")

/** @internal */
export const spanName = { turn: "invoke_agent fallback", wait: "fallback.wait" } as const

/** @internal */
export const attemptSpanName = (place: Place.Place) => `chat ${place.model}`

/** A histogram in seconds; its series carry the unit as a label (`unit`: `s`), which OTLP exports read. */
const seconds = (name: string, description: string, bounds: ReadonlyArray<number>) =>
  Metric.histogram(name, MetricBoundaries.fromIterable(bounds), description)

/** @internal */
export const attempts = Metric.counter("fallback.attempts", {
  description: "Requests a turn made, by place and outcome (answered, or the failure's kind)",
  incremental: true
})

/** @internal */
export const moves = Metric.counter("fallback.moves", {
  description: "Moves a turn made to another account or place, by how and from where",
  incremental: true
})

/** @internal */
export const skips = Metric.counter("fallback.skips", {
  description: "Places a turn passed over without a request (parked, cooling, ...), by place and why",
  incremental: true
})

/** @internal */
export const breakerOpenings = Metric.counter("fallback.breaker.openings", {
  description: "Times a place's breaker opened (the place was parked)",
  incremental: true
})

/** @internal */
export const parked = Metric.gauge("fallback.breaker.parked", {
  description: "1 while a place is parked by its breaker, 0 once a request there is answered again"
})

/** @internal */
export const waits = seconds("fallback.wait.duration", "Waits started before going again at a place, in seconds", [
  0.5,
  1,
  2,
  5,
  10,
  15,
  30,
  60,
  120,
  300,
  900
])

const turnBounds = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900]

/** @internal */
export const timeToFirstContent = seconds(
  "fallback.turn.time_to_first_content",
  "From a turn's start to its answer's first content, in seconds",
  turnBounds
)

/** @internal */
export const turnDuration = seconds(
  "fallback.turn.duration",
  "A turn from its start to its end (answered, or the kind it failed with), in seconds",
  turnBounds
)

const unit = MetricLabel.make("unit", "s")

/**
 * The label sets of a place, each the same array every time, so a metric finds its series by
 * identity (a WeakMap) instead of hashing the labels on every turn.
 */
interface Sets {
  readonly place: ReadonlyArray<MetricLabel.MetricLabel>
  readonly seconds: ReadonlyArray<MetricLabel.MetricLabel>
  /** The place and `fallback.outcome` = `answered`, counted and timed: what a landing records. */
  readonly answered: ReadonlyArray<MetricLabel.MetricLabel>
  readonly answeredSeconds: ReadonlyArray<MetricLabel.MetricLabel>
  /** By the extra label's key, then its value: constant strings, so no string is built to look one up. */
  readonly by: Map<string, Map<string, ReadonlyArray<MetricLabel.MetricLabel>>>
  readonly timedBy: Map<string, Map<string, ReadonlyArray<MetricLabel.MetricLabel>>>
}

/** By the place as written: a turn's walk reads its places afresh, as new objects of the same places. */
const setsByPlace = new Map<string, Sets>()

const setsOf = (place: Place.Place): Sets => {
  const written = Place.format(place)
  let sets = setsByPlace.get(written)
  if (sets === undefined) {
    const label = MetricLabel.make(attribute.place, written)
    const answered = MetricLabel.make(attribute.outcome, "answered")
    sets = {
      place: [label],
      seconds: [label, unit],
      answered: [label, answered],
      answeredSeconds: [label, unit, answered],
      by: new Map(),
      timedBy: new Map()
    }
    setsByPlace.set(written, sets)
  }
  return sets
}

/** The labels of a place and one more (`key` = `value`), with the unit when `timed`. */
const labels = (place: Place.Place, key: string, value: string, timed = false) => {
  const sets = setsOf(place)
  const byKey = timed ? sets.timedBy : sets.by
  let byValue = byKey.get(key)
  if (byValue === undefined) byKey.set(key, byValue = new Map())
  let found = byValue.get(value)
  if (found === undefined) {
    found = [...(timed ? sets.seconds : sets.place), MetricLabel.make(key, value)]
    byValue.set(value, found)
  }
  return found
}

const native = Context.get(DefaultServices.liveServices, Tracer.Tracer)

/** Whether spans go anywhere: a tracer the program installed, and tracing not switched off. */
const tracing = (fiber: Fiber.RuntimeFiber<unknown, unknown>) =>
  fiber.currentTracer !== native && fiber.getFiberRef(FiberRef.currentTracerEnabled)

const placeAttributes = (place: Place.Place): Record<string, unknown> => ({
  [attribute.provider]: place.cli,
  [attribute.system]: place.cli,
  [attribute.model]: place.model,
  [attribute.place]: Place.format(place),
  ...(place.account === undefined ? {} : { [attribute.account]: place.account })
})

/** What the engine's telemetry reads of a turn. */
interface Turn {
  readonly startedAt: number
  readonly clock: Clock.Clock
  readonly attempts: number
}

/** The span of each turn being traced, by its run; a turn not traced has none. */
const spans = new WeakMap<Turn, Tracer.Span>()

const secondsSince = (turn: Turn) => (turn.clock.unsafeCurrentTimeMillis() - turn.startedAt) / 1000

const outcomeOf = (exit: Exit.Exit<unknown, unknown>): string => {
  if (exit._tag === "Success") return "answered"
  const failure = Cause.failureOption(exit.cause)
  if (Option.isSome(failure)) return (failure.value as Failure.Failure)._tag
  return Cause.isInterruptedOnly(exit.cause) ? "interrupted" : "defect"
}

/** The end of a turn: its duration, by its first place and outcome, and its span's outcome. */
const ended = (turn: Turn, start: Place.Place, exit: Exit.Exit<unknown, unknown>) => {
  const outcome = outcomeOf(exit)
  turnDuration.unsafeUpdate(secondsSince(turn), labels(start, attribute.outcome, outcome, true))
  const span = spans.get(turn)
  if (span === undefined) return
  span.attribute(attribute.outcome, outcome)
  span.attribute(attribute.attempts, turn.attempts)
  if (outcome !== "answered") span.attribute(attribute.errorType, outcome)
}

const turnSpan = (turn: Turn, start: Place.Place) =>
  Effect.map(
    Effect.makeSpanScoped(spanName.turn, {
      kind: "internal",
      captureStackTrace: false,
      attributes: { [attribute.operation]: "invoke_agent", ...placeAttributes(start) }
    }),
    (span) => {
      spans.set(turn, span)
      return span
    }
  )

/**
 * A turn read as a stream: its span (when a tracer is installed) lasts until the stream ends and
 * is the parent of all the stream runs; the turn's duration is recorded then.
 *
 * @internal
 */
export const streamedTurn = <E>(
  turn: Turn,
  start: Place.Place,
  answer: Effect.Effect<Stream.Stream<Backend.Event, E>, E>,
  after: () => Effect.Effect<void>
): Effect.Effect<Stream.Stream<Backend.Event, E>, E, Scope.Scope> =>
  Effect.withFiberRuntime((fiber) => {
    const end = Effect.addFinalizer((exit) => {
      ended(turn, start, exit)
      return after()
    })
    if (!tracing(fiber)) return Effect.zipRight(end, answer)
    return Effect.flatMap(turnSpan(turn, start), (span) =>
      Effect.zipRight(
        end,
        Effect.map(Effect.withParentSpan(answer, span), (stream) =>
          stream.pipe(
            Stream.tap((event) => Effect.sync(() => usage(span, event))),
            Stream.provideService(Tracer.ParentSpan, span)
          ))
      ))
  })

const usage = (span: Tracer.Span, event: Backend.Event) => {
  if (event._tag !== "Result") return
  span.attribute(attribute.inputTokens, event.usage.input)
  span.attribute(attribute.outputTokens, event.usage.output)
}

/**
 * Reads the turn's clock and whether spans go anywhere, in one step (as `Effect.clockWith`
 * reads the clock), for a turn answered whole.
 *
 * @internal
 */
export const turnWith = <A, E, R>(f: (clock: Clock.Clock, traced: boolean) => Effect.Effect<A, E, R>) =>
  Effect.withFiberRuntime<A, E, R>((fiber) => f(Context.get(fiber.currentDefaultServices, Clock.Clock), tracing(fiber)))

/**
 * A turn answered whole, past the bare landing: its span when `traced`, and its duration; `after`
 * runs at its end, whatever the end, once the duration is recorded.
 *
 * @internal
 */
export const wholeTurn = <R>(
  turn: Turn,
  start: Place.Place,
  traced: boolean,
  answer: Effect.Effect<ReadonlyArray<Backend.Event>, Failure.Failure, R>,
  after: (exit: Exit.Exit<ReadonlyArray<Backend.Event>, Failure.Failure>) => Effect.Effect<void>
): Effect.Effect<ReadonlyArray<Backend.Event>, Failure.Failure, R> => {
  const timed = Effect.onExit(answer, (exit) => {
    ended(turn, start, exit)
    return after(exit)
  })
  if (!traced) return timed
  return Effect.scoped(Effect.flatMap(turnSpan(turn, start), (span) =>
    Effect.withParentSpan(
      Effect.tap(timed, (events) => Effect.sync(() => events.forEach((event) => usage(span, event)))),
      span
    )))
}

/**
 * A bare landing: one attempt answered at the turn's first place, and no span.
 *
 * @internal
 */
export const landed = (turn: Turn, place: Place.Place) => {
  const sets = setsOf(place)
  attempts.unsafeUpdate(1, sets.answered)
  const took = secondsSince(turn)
  timeToFirstContent.unsafeUpdate(took, sets.seconds)
  turnDuration.unsafeUpdate(took, sets.answeredSeconds)
}

/**
 * One attempt at a place, when its turn is traced: a span around it, failed with the failure
 * (so the span's status says so), with the attempt's number, how the turn got there, and its
 * outcome.
 *
 * @internal
 */
export const attempt = <A, R>(
  turn: Turn,
  place: Place.Place,
  move: "start" | "account" | "place",
  go: Effect.Effect<Either.Either<A, Failure.Failure>, never, R>
): Effect.Effect<Either.Either<A, Failure.Failure>, never, R> => {
  const parent = spans.get(turn)
  if (parent === undefined) return go
  const shown = Effect.locallyWith(go, Headers.currentRedactedNames, (names) => [...names, unkeptHeader])
  const spanned = Effect.flatMap(shown, (result) =>
    Either.isRight(result)
      ? Effect.as(Effect.annotateCurrentSpan(attribute.outcome, "answered"), result.right)
      : Effect.zipRight(
        Effect.annotateCurrentSpan({ [attribute.outcome]: result.left._tag, [attribute.errorType]: result.left._tag }),
        Effect.fail(result.left)
      ))
  return Effect.either(Effect.withSpan(spanned, attemptSpanName(place), {
    kind: "client",
    parent,
    captureStackTrace: false,
    attributes: {
      [attribute.operation]: "chat",
      [attribute.attempt]: turn.attempts + 1,
      [attribute.moveBy]: move,
      ...placeAttributes(place)
    }
  }))
}

/**
 * An attempt's outcome, counted: answered, or its failure's kind; an answer's first content also
 * marks the time to it from the turn's start, by the place that answered.
 *
 * @internal
 */
export const attempted = <A>(turn: Turn, place: Place.Place, result: Either.Either<A, Failure.Failure>): void => {
  if (Either.isLeft(result)) return attempts.unsafeUpdate(1, labels(place, attribute.outcome, result.left._tag))
  const sets = setsOf(place)
  attempts.unsafeUpdate(1, sets.answered)
  timeToFirstContent.unsafeUpdate(secondsSince(turn), sets.seconds)
  spans.get(turn)?.attribute(attribute.answeredAt, Place.format(place))
}

/**
 * A wait before going again at a place: its length in the histogram of waits, and a span as long
 * as the wait when the turn is traced.
 *
 * @internal
 */
export const wait = (turn: Turn, place: Place.Place, failure: Failure.Failure, millis: number): Effect.Effect<void> => {
  waits.unsafeUpdate(millis / 1000, labels(place, attribute.errorType, failure._tag, true))
  const sleep = Effect.sleep(Duration.millis(millis))
  const parent = spans.get(turn)
  if (parent === undefined) return sleep
  return Effect.withSpan(sleep, spanName.wait, {
    kind: "internal",
    parent,
    captureStackTrace: false,
    attributes: {
      [attribute.place]: Place.format(place),
      [attribute.errorType]: failure._tag,
      [attribute.waitMs]: millis
    }
  })
}

/**
 * A place's breaker opened: one more opening, and the place parked.
 *
 * @internal
 */
export const opened = (place: Place.Place): void => {
  breakerOpenings.unsafeUpdate(1, setsOf(place).place)
  parked.unsafeUpdate(1, setsOf(place).place)
}

/**
 * A place that was parked answered: no longer parked.
 *
 * @internal
 */
export const cleared = (place: Place.Place): void => parked.unsafeUpdate(0, setsOf(place).place)

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

/** @internal */
export const eventName: Record<Notice["_tag"], string> = {
  Retrying: "fallback.retry",
  Moving: "fallback.move",
  Skipping: "fallback.skip",
  Compacting: "fallback.compact",
  Probing: "fallback.probe",
  Stalled: "fallback.stall",
  Fresh: "fallback.fresh",
  Stopping: "fallback.stop",
  Sharing: "fallback.health.sharing"
}

const counted = (notice: Notice) => {
  if (notice._tag === "Moving") moves.unsafeUpdate(1, labels(notice.from, attribute.moveBy, notice.by))
  else if (notice._tag === "Skipping") skips.unsafeUpdate(1, labels(notice.place, attribute.skipWhy, notice.why))
}

/** Effect's own loggers: to the console (plain, or pretty as `runMain` sets it), and to spans. */
const own: ReadonlySet<Logger.Logger<unknown, any>> = new Set([
  Logger.defaultLogger,
  Logger.prettyLoggerDefault,
  Logger.tracerLogger
])

/** The loggers a program installed, worked out again only when the set of loggers changes. */
let lastLoggers: HashSet.HashSet<Logger.Logger<unknown, any>> | undefined = undefined
let lastInstalled: HashSet.HashSet<Logger.Logger<unknown, any>> = HashSet.empty()
const installed = (loggers: HashSet.HashSet<Logger.Logger<unknown, any>>) => {
  if (loggers !== lastLoggers) {
    lastInstalled = HashSet.filter(loggers, (logger) => !own.has(logger))
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
  Effect.withFiberRuntime((fiber) => {
    counted(notice)
    const span = fiber.currentSpan
    const traced = span?._tag === "Span" && tracing(fiber)
    const loggers = installed(fiber.getFiberRef(FiberRef.currentLoggers))
    if (!traced && HashSet.size(loggers) === 0) return Effect.void
    const annotations = masked(annotationsOf(notice))
    const text = redact(format(notice))
    if (traced) {
      const now = Context.get(fiber.currentDefaultServices, Clock.Clock).unsafeCurrentTimeNanos()
      span.event(eventName[notice._tag], now, { ...annotations, [attribute.notice]: text })
    }
    if (HashSet.size(loggers) === 0) return Effect.void
    return (notice._tag === "Stopping" ? Effect.logWarning : Effect.logInfo)(text).pipe(
      Effect.annotateLogs({ ...annotations, [attribute.notice]: notice._tag }),
      Effect.locally(FiberRef.currentLoggers, loggers)
    )
  })

/**
 * A notice channel whose notices are also observed ({@link noticed}).
 *
 * @internal
 */
export const observed = (channel: Channel): Channel => ({
  publish: (notice) => Effect.zipRight(channel.publish(notice), noticed(notice)),
  watch: channel.watch
})
