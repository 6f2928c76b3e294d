import * as Command from "@effect/cli/Command"
import * as Path from "@effect/platform/Path"
import * as ConfigFile from "@fallback/core/ConfigFile"
import * as Health from "@fallback/core/Health"
import * as Place from "@fallback/core/Place"
import * as Clock from "effect/Clock"
import * as Console from "effect/Console"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { config, editing, json } from "./config.js"
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
  Layer.unwrapEffect(
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

/** @internal */
export const status = Command.make("status", { config, json }, ({ config, json }) =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const places = (yield* (yield* Health.Health).snapshot).map((entry) => ({
      place: Place.format(entry.place),
      breaker: entry.breaker,
      failures: entry.failures,
      parkedFor: Option.getOrNull(Option.map(left(entry.parkedUntil, now), (ms) => Math.ceil(ms / 1000))),
      coolingFor: Option.getOrNull(Option.map(left(entry.coolingUntil, now), (ms) => Math.ceil(ms / 1000))),
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
  }).pipe(Effect.provide(health()), Effect.provide(editing(config)))).pipe(
    Command.withDescription(
      "The health of every place with a failure recorded: its breaker (closed, parked, trial), failures in a\n" +
        "row, how long it stays parked or cooling, and the last failure.\n\n  fallback status\n  fallback status --json"
    )
  )
