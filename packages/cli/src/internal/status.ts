import * as ConfigFile from "@fallback/core/ConfigFile"
import * as Health from "@fallback/core/Health"
import * as Place from "@fallback/core/Place"
import * as Argument from "effect/cli/Argument"
import * as Command from "effect/cli/Command"
import * as Clock from "effect/Clock"
import * as Console from "effect/Console"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Path from "effect/Path"
import * as Schema from "effect/Schema"

import { config, editing, json, toggle } from "./config.js"
import { formatTime } from "./seconds.js"
import { table } from "./table.js"

/**
 * The health of places, in the store the config file chooses: `health.json` beside the config
 * file (the default), so every run of the command line sees what the runs before it found; or
 * Redis, shared with every process on every machine that uses it.
 *
 * @internal
 */
export const health = (breaker: Health.Breaker = Health.defaultBreaker) =>
  Layer.unwrap(
    Effect.gen(function*() {
      const store = yield* ConfigFile.Store
      const chosen = (yield* store.read).health
      if (chosen?.store === "redis") {
        // loaded only when chosen: most runs keep health in the file and never load a Redis client
        const { RedisHealth } = yield* Effect.promise(() => import("@fallback/redis"))
        return RedisHealth.layerSettings(chosen, breaker)
      }
      const path = yield* Path.Path
      const file = yield* Option.match(store.file, { onNone: () => ConfigFile.location, onSome: Effect.succeed })
      return Health.Health.layerFile(path.join(path.dirname(file), "health.json"), breaker)
    })
  )

const left = (until: Option.Option<number>, now: number) =>
  Option.filter(Option.map(until, (at) => at - now), (millis) => millis > 0)

const place = Argument.String("place").pipe(
  Argument.withDescription("one place: CLI[@ACCOUNT]/MODEL (with --clear: every place when left out)"),
  Argument.optional
)

const clear = toggle(
  "clear",
  "forget the failures recorded against PLACE (or every place), so the next turn goes there"
)

const tryNow = toggle(
  "try",
  "take a short turn at PLACE now, parked or not: an answer clears it, a failure is recorded (exit status as run's)"
)

/**
 * `status` was asked for something that needs a place, or two things at once.
 *
 * @internal
 */
export class InvalidStatus extends Schema.TaggedError<InvalidStatus>("@fallback/cli/InvalidStatus")("InvalidStatus", {
  reason: Schema.String
}) {
  override get message(): string {
    return this.reason
  }
}

/** @internal */
export const status = Command.make(
  "status",
  { config, json, clear, tryNow, place },
  ({ clear, config, json, place, tryNow }) =>
    Effect.gen(function*() {
      const health = yield* Health.Health
      const only = Option.isSome(place)
        ? Option.some(yield* Effect.fromResult(Place.parse(place.value)))
        : Option.none()
      if (clear && tryNow) return yield* new InvalidStatus({ reason: "--clear and --try: give one" })
      if (tryNow) {
        if (Option.isNone(only)) {
          return yield* new InvalidStatus({
            reason: "--try needs the place to try: fallback status --try CLI[@ACCOUNT]/MODEL"
          })
        }
        return yield* Effect.flatMap(Effect.promise(() => import("./trial.js")), ({ trial }) => trial(only.value))
      }
      if (clear) {
        const recorded = (yield* health.snapshot).map((entry) => entry.place)
        const clearing = Option.match(only, {
          onNone: () => recorded,
          onSome: (at) => recorded.filter((p) => Place.format(p) === Place.format(at))
        })
        yield* Effect.forEach(clearing, health.succeeded, { discard: true })
        return yield* Console.log(
          clearing.length === 0
            ? `${
              Option.match(only, { onNone: () => "No place", onSome: Place.format })
            } has no failures recorded; nothing to clear`
            : `cleared ${clearing.map(Place.format).join(", ")}`
        )
      }
      const now = yield* Clock.currentTimeMillis
      const places = (yield* health.snapshot).filter((entry) =>
        Option.match(only, { onNone: () => true, onSome: (at) => Place.format(at) === Place.format(entry.place) })
      ).map((entry) => ({
        place: Place.format(entry.place),
        breaker: entry.breaker,
        failures: entry.failures,
        parkedFor: Option.getOrNull(Option.map(left(entry.parkedUntil, now), (ms) => Math.ceil(ms / 1000))),
        coolingFor: Option.getOrNull(Option.map(left(entry.coolingUntil, now), (ms) => Math.ceil(ms / 1000))),
        kind: entry.last._tag,
        last: entry.last.message
      }))
      if (json) return yield* Console.log(JSON.stringify(places, null, 2))
      if (places.length === 0) return yield* Console.log("Every place is healthy: no failures recorded.")
      yield* Console.log(table(
        ["PLACE", "BREAKER", "FAILURES IN A ROW", "PARKED FOR", "COOLING FOR", "LAST FAILURE"],
        places.map((p) => [
          p.place,
          p.breaker,
          String(p.failures),
          p.parkedFor === null ? "-" : formatTime(Duration.seconds(p.parkedFor)),
          p.coolingFor === null ? "-" : formatTime(Duration.seconds(p.coolingFor)),
          p.last
        ])
      ))
    }).pipe(Effect.provide(health()), Effect.provide(editing(config)))
).pipe(
  Command.withDescription(
    "The health of every place with a failure recorded: its breaker (closed, parked, trial), failures in a\n" +
      "row, how long it stays parked or cooling, and the last failure. --clear forgets them; --try takes a\n" +
      "short turn at a place now, parked or not, and when it fails exits with the status run gives that kind.\n\n" +
      "  fallback status\n  fallback status --json\n" +
      "  fallback status --clear claude@work/claude-opus-5\n  fallback status --clear\n" +
      "  fallback status --try claude@work/claude-opus-5"
  )
)
