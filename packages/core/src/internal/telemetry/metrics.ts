import type * as Context from "effect/Context"
import * as Metric from "effect/Metric"
import * as Place from "../../Place.js"
import { attribute } from "./attributes.js"

type Attributes = Readonly<Record<string, string>>

/**
 * A metric and how to make its series for a set of attributes. A series is a metric of its own,
 * made once and kept, so an update finds it without merging attributes or building a key.
 */
interface Family<M extends Metric.Metric<number, unknown>> {
  readonly metric: M
  readonly make: (attributes: Attributes) => M
}

const counter = (name: string, description: string): Family<Metric.Counter<number>> => {
  const make = (attributes?: Attributes) =>
    Metric.counter(name, { description, incremental: true, ...(attributes === undefined ? {} : { attributes }) })
  return { metric: make(), make }
}

/** A histogram in seconds; its series carry the unit as an attribute (`unit`: `s`), which OTLP exports read. */
const seconds = (name: string, description: string, boundaries: ReadonlyArray<number>) => {
  const make = (attributes?: Attributes) =>
    Metric.histogram(name, { description, boundaries, ...(attributes === undefined ? {} : { attributes }) })
  return { metric: make(), make: (attributes: Attributes) => make({ ...attributes, unit: "s" }) }
}

/** @internal */
export const attempts = counter(
  "fallback.attempts",
  "Requests a turn made, by place and outcome (answered, or the failure's kind)"
)

/** @internal */
export const moves = counter("fallback.moves", "Moves a turn made to another account or place, by how and from where")

/** @internal */
export const skips = counter(
  "fallback.skips",
  "Places a turn passed over without a request (parked, cooling, ...), by place and why"
)

/** @internal */
export const breakerOpenings = counter(
  "fallback.breaker.openings",
  "Times a place's breaker opened (the place was parked)"
)

const gauge = (name: string, description: string): Family<Metric.Gauge<number>> => {
  const make = (attributes?: Attributes) =>
    Metric.gauge(name, { description, ...(attributes === undefined ? {} : { attributes }) })
  return { metric: make(), make }
}

/** @internal */
export const parked = gauge(
  "fallback.breaker.parked",
  "1 while a place is parked by its breaker, 0 once a request there is answered again"
)

/** @internal */
export const waits = seconds(
  "fallback.wait.duration",
  "Waits started before going again at a place, in seconds",
  [0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 900]
)

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

/**
 * The series of one place: by family, then the extra attribute's key and value (constant strings,
 * so no string is built to look one up). `""` as the key is the place alone.
 */
type Series = Map<Family<any>, Map<string, Map<string, Metric.Metric<number, unknown>>>>

/** By the place as written: a turn's walk reads its places afresh, as new objects of the same places. */
const seriesByPlace = new Map<string, Series>()

/**
 * The series of `family` for a place, and one more attribute (`key` = `value`) unless `key` is `""`.
 *
 * @internal
 */
export const series = <M extends Metric.Metric<number, unknown>>(
  family: Family<M>,
  place: Place.Place,
  key = "",
  value = ""
): M => {
  const written = Place.format(place)
  let byFamily = seriesByPlace.get(written)
  if (byFamily === undefined) seriesByPlace.set(written, byFamily = new Map())
  let byKey = byFamily.get(family)
  if (byKey === undefined) byFamily.set(family, byKey = new Map())
  let byValue = byKey.get(key)
  if (byValue === undefined) byKey.set(key, byValue = new Map())
  let found = byValue.get(value)
  if (found === undefined) {
    found = family.make(key === "" ? { [attribute.place]: written } : { [attribute.place]: written, [key]: value })
    byValue.set(value, found)
  }
  return found as M
}

/**
 * One more in `family`'s series for a place, kept in the registry of `services`.
 *
 * @internal
 */
export const record = <M extends Metric.Metric<number, unknown>>(
  services: Context.Context<never>,
  family: Family<M>,
  amount: number,
  place: Place.Place,
  key = "",
  value = ""
): void => series(family, place, key, value).updateUnsafe(amount, services)

/** The series a bare landing updates, by the place object a held agent starts at on every turn. */
const landings = new WeakMap<
  Place.Place,
  readonly [Metric.Counter<number>, Metric.Metric<number, unknown>, Metric.Metric<number, unknown>]
>()

/**
 * The series of a bare landing at `place`: its attempt answered, its time to first content and
 * its turn's duration, answered.
 *
 * @internal
 */
export const landing = (place: Place.Place) => {
  let found = landings.get(place)
  if (found === undefined) {
    found = [
      series(attempts, place, attribute.outcome, "answered"),
      series(timeToFirstContent, place),
      series(turnDuration, place, attribute.outcome, "answered")
    ]
    landings.set(place, found)
  }
  return found
}
