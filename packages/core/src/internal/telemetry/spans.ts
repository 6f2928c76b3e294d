import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import * as Headers from "effect/http/Headers"
import * as References from "effect/References"
import * as Result from "effect/Result"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Tracer from "effect/Tracer"
import type * as Backend from "../../Backend.js"
import type * as Failure from "../../Failure.js"
import * as Place from "../../Place.js"
import { attemptSpanName, attribute, spanName, unkeptHeader } from "./attributes.js"
import * as metrics from "./metrics.js"

/**
 * Whether spans go anywhere: a tracer the program installed, and tracing not switched off.
 *
 * @internal
 */
export const tracing = (fiber: Fiber.Fiber<unknown, unknown>): boolean =>
  fiber.getRef(Tracer.Tracer) !== Tracer.nativeTracer && fiber.getRef(References.TracerEnabled)

const placeAttributes = (place: Place.Place): Record<string, unknown> => ({
  [attribute.provider]: place.cli,
  [attribute.system]: place.cli,
  [attribute.model]: place.model,
  [attribute.place]: Place.format(place),
  ...(place.account === undefined ? {} : { [attribute.account]: place.account })
})

/**
 * What the engine's telemetry reads of a turn: `services` are the turn's fiber's (`turnWith` gives
 * them), whose metric registry its metrics are kept in.
 *
 * @internal
 */
export interface Turn {
  readonly startedAt: number
  readonly clock: Clock.Clock
  readonly attempts: number
  readonly services?: Context.Context<never> | undefined
}

const noServices = Context.empty()
const servicesOf = (turn: Turn) => turn.services ?? noServices

/** The span of each turn being traced, by its run; a turn not traced has none. */
const spans = new WeakMap<Turn, Tracer.Span>()

const secondsSince = (turn: Turn) => (turn.clock.currentTimeMillisUnsafe() - turn.startedAt) / 1000

const outcomeOf = (exit: Exit.Exit<unknown, unknown>): string => {
  if (exit._tag === "Success") return "answered"
  const failure = Cause.findErrorOption(exit.cause)
  if (failure._tag === "Some") return (failure.value as Failure.Failure)._tag
  return Cause.hasInterruptsOnly(exit.cause) ? "interrupted" : "defect"
}

/** The end of a turn: its duration, by its first place and outcome, and its span's outcome. */
const ended = (turn: Turn, start: Place.Place, exit: Exit.Exit<unknown, unknown>) => {
  const outcome = outcomeOf(exit)
  metrics.record(servicesOf(turn), metrics.turnDuration, secondsSince(turn), start, attribute.outcome, outcome)
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
      attributes: { [attribute.operation]: "invoke_agent", ...placeAttributes(start) }
    }),
    (span) => {
      spans.set(turn, span)
      return span
    }
  )

const usage = (span: Tracer.Span, event: Backend.Event) => {
  if (event._tag !== "Result") return
  span.attribute(attribute.inputTokens, event.usage.input)
  span.attribute(attribute.outputTokens, event.usage.output)
}

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
  Effect.withFiber((fiber) => {
    const end = Effect.addFinalizer((exit) => {
      ended(turn, start, exit)
      return after()
    })
    if (!tracing(fiber)) return Effect.andThen(end, answer)
    return Effect.flatMap(turnSpan(turn, start), (span) =>
      Effect.andThen(
        end,
        Effect.map(Effect.withParentSpan(answer, span), (stream) =>
          stream.pipe(
            Stream.tap((event) => Effect.sync(() => usage(span, event))),
            Stream.provideService(Tracer.ParentSpan, span)
          ))
      ))
  })

/**
 * Reads the turn's clock, whether spans go anywhere and the fiber's services, in one step (as
 * `Effect.clockWith` reads the clock), for a turn answered whole.
 *
 * @internal
 */
export const turnWith = <A, E, R>(
  f: (clock: Clock.Clock, traced: boolean, services: Context.Context<never>) => Effect.Effect<A, E, R>
) => Effect.withFiber<A, E, R>((fiber) => f(fiber.getRef(Clock.Clock), tracing(fiber), fiber.context))

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
export const landed = (turn: Turn, place: Place.Place): void => {
  const services = servicesOf(turn)
  const [answered, firstContent, duration] = metrics.landing(place)
  answered.updateUnsafe(1, services)
  const took = secondsSince(turn)
  firstContent.updateUnsafe(took, services)
  duration.updateUnsafe(took, services)
}

/**
 * One attempt at a place, when its turn is traced: a span around it, failed with the failure
 * (so the span's status says so), with the attempt's number, how the turn got there, and its
 * outcome. Inside it the HTTP client's spans show only the headers {@link keptHeader} keeps.
 *
 * @internal
 */
export const attempt = <A, R>(
  turn: Turn,
  place: Place.Place,
  move: "start" | "account" | "place",
  go: Effect.Effect<Result.Result<A, Failure.Failure>, never, R>
): Effect.Effect<Result.Result<A, Failure.Failure>, never, R> => {
  const parent = spans.get(turn)
  if (parent === undefined) return go
  const shown = Effect.withFiber((fiber) =>
    Effect.provideService(go, Headers.CurrentRedactedNames, [
      ...fiber.getRef(Headers.CurrentRedactedNames),
      unkeptHeader
    ])
  )
  const spanned = Effect.flatMap(shown, (result) =>
    Result.isSuccess(result)
      ? Effect.as(Effect.annotateCurrentSpan(attribute.outcome, "answered"), result.success)
      : Effect.andThen(
        Effect.annotateCurrentSpan({
          [attribute.outcome]: result.failure._tag,
          [attribute.errorType]: result.failure._tag
        }),
        Effect.fail(result.failure)
      ))
  return Effect.result(Effect.withSpan(spanned, attemptSpanName(place), {
    kind: "client",
    parent,
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
export const attempted = <A>(turn: Turn, place: Place.Place, result: Result.Result<A, Failure.Failure>): void => {
  const services = servicesOf(turn)
  if (Result.isFailure(result)) {
    return metrics.record(services, metrics.attempts, 1, place, attribute.outcome, result.failure._tag)
  }
  metrics.record(services, metrics.attempts, 1, place, attribute.outcome, "answered")
  metrics.record(services, metrics.timeToFirstContent, secondsSince(turn), place)
  spans.get(turn)?.attribute(attribute.answeredAt, Place.format(place))
}

/**
 * A wait before going again at a place: its length in the histogram of waits, and a span as long
 * as the wait when the turn is traced.
 *
 * @internal
 */
export const wait = (turn: Turn, place: Place.Place, failure: Failure.Failure, millis: number): Effect.Effect<void> => {
  metrics.record(servicesOf(turn), metrics.waits, millis / 1000, place, attribute.errorType, failure._tag)
  const sleep = Effect.sleep(Duration.millis(millis))
  const parent = spans.get(turn)
  if (parent === undefined) return sleep
  return Effect.withSpan(sleep, spanName.wait, {
    kind: "internal",
    parent,
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
export const opened = (place: Place.Place): Effect.Effect<void> =>
  Effect.withFiber((fiber) => {
    metrics.record(fiber.context, metrics.breakerOpenings, 1, place)
    metrics.record(fiber.context, metrics.parked, 1, place)
    return Effect.void
  })

/**
 * A place that was parked answered: no longer parked.
 *
 * @internal
 */
export const cleared = (place: Place.Place): Effect.Effect<void> =>
  Effect.withFiber((fiber) => {
    metrics.record(fiber.context, metrics.parked, 0, place)
    return Effect.void
  })
