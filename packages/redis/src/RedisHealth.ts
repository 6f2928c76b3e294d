/**
 * The health of places (failures in a row, breakers, cooldowns) kept in Redis, so every process on
 * every machine sees one breaker per place: a provider that asked one worker to stop is left alone
 * by all of them.
 *
 * ```ts
 * import { RedisHealth } from "@fallback/redis"
 * const health = RedisHealth.layer({ url: Redacted.make("redis://127.0.0.1:6379") })
 * // Agent.make(...) with `health` in place of Health.Health.layerMemory()
 * ```
 *
 * Every transition is one Lua script on the server: a failure counted and the breaker opened in
 * one step; exactly one trial per park across every process, leased to its taker (a process killed
 * mid-trial gives it back when the lease ends); cooldowns as keys that expire; every time the
 * server's, so hosts whose clocks disagree agree. Keys are `<prefix><place>` (`:trial`, `:cool`).
 * A turn that lands at a healthy place writes nothing, and its admission is read from a cache that
 * Redis's change channel keeps true.
 *
 * Redis is reached through `effect/persistence/Redis`, on the `redis` client of `@effect/platform-node`'s
 * NodeRedis layer; the scripts are loaded once and run by `EVALSHA`.
 *
 * Slow is not away: an operation is waited for (`timeout`, 30 s, and the turn's own limits), so a
 * busy machine loses no failure and hands out no extra trial. Redis away (the connection refused
 * or closed, or no answer within `timeout`) never fails a turn: the operation is taken by this
 * process's own health, a `Sharing` notice says so once, and Redis is asked again after `retry`;
 * when it answers, a second notice says health is shared again. What was recorded locally
 * meanwhile stays local, and a place Redis was last seen to have parked is skipped on local health
 * until its park (and the trial after it) would have ended: a process on its own health is never
 * a second trial of it. A failure the health schema refuses (a cooldown's end no Date holds) is
 * written nowhere, and a notice says so.
 *
 * @since 0.1.0
 */
import * as Health from "@fallback/core/Health"
import * as Config from "effect/Config"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"

import * as internal from "./internal/redisHealth.js"

/**
 * How to reach Redis and keep health there.
 *
 * - `url`: `redis://HOST:PORT[/DB]` or `rediss://…` (TLS); redacted, since a URL may carry a password.
 * - `password`: the password, when the URL has none (from the environment, never written in a file).
 * - `prefix`: put before every key (`fallback:health:`); one per team or deployment sharing a Redis.
 * - `breaker`: the breaker's numbers (the breaker preset's by default); every process sharing a
 *   prefix should use the same.
 * - `timeout`: how long an operation is waited for before this process carries on without Redis
 *   (30 s): a slow answer is waited for; a refused or closed connection is carried on from at once.
 * - `retry`: how long it carries on without Redis before asking it again (1 s).
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly url: Redacted.Redacted<string>
  readonly password?: Redacted.Redacted<string> | undefined
  readonly prefix?: string | undefined
  readonly breaker?: Health.Breaker | undefined
  readonly timeout?: Duration.Duration | undefined
  readonly retry?: Duration.Duration | undefined
}

/**
 * A Health service kept in Redis, connected for as long as the scope lasts.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: (options: Options) => Effect.Effect<Health.Health["Service"], never, Scope.Scope> = internal.make

/**
 * Health kept in Redis, as a layer.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<Health.Health> => Layer.effect(Health.Health, make(options))

/**
 * The URL as it may be shown: scheme, host, port and database, without a user or password.
 *
 * @since 0.1.0
 * @category utils
 */
export const shown: (url: string) => string = internal.shown

/**
 * A variable the Redis store's settings name is not set.
 *
 * @since 0.1.0
 * @category errors
 */
export class VariableUnset extends Schema.TaggedError<VariableUnset>("@fallback/redis/VariableUnset")("VariableUnset", {
  variable: Schema.String,
  what: Schema.String
}) {
  override get message() {
    return `the ${this.what} of the health store is read from ${this.variable}, which is not set; set it, or change "health" in the config file`
  }
}

/**
 * The Redis store as a config file writes it: the URL plainly or `{ fromEnv }`, a password only
 * `{ fromEnv }`, and a prefix.
 *
 * @since 0.1.0
 * @category models
 */
export interface Settings {
  readonly url: string | { readonly fromEnv: string }
  readonly password?: { readonly fromEnv: string } | undefined
  readonly prefix?: string | undefined
}

const fromEnv = (variable: string, what: string) =>
  Effect.mapError(Config.Redacted(variable), () => new VariableUnset({ variable, what }))

/**
 * Health kept in Redis as the settings say, with the variables they name read from the environment.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerSettings = (
  settings: Settings,
  breaker?: Health.Breaker
): Layer.Layer<Health.Health, VariableUnset> =>
  Layer.unwrap(Effect.gen(function*() {
    const url = typeof settings.url === "string"
      ? Redacted.make(settings.url)
      : yield* fromEnv(settings.url.fromEnv, "URL")
    const password = settings.password === undefined ? undefined : yield* fromEnv(settings.password.fromEnv, "password")
    return layer({ url, password, prefix: settings.prefix, breaker })
  }))
