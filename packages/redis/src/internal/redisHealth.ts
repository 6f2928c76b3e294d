import * as Failure from "@fallback/core/Failure"
import * as Health from "@fallback/core/Health"
import * as Notice from "@fallback/core/Notice"
import * as Place from "@fallback/core/Place"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Redis from "effect/persistence/Redis"
import * as Redacted from "effect/Redacted"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"

import type * as RedisHealth from "../RedisHealth.js"
import * as Connection from "./connection.js"
import * as scripts from "./scripts.js"

const decodeFailure = Schema.decodeUnknownSync(Schema.fromJsonString(Failure.Failure))

/** What Redis keeps of what a backend said, as the file does: enough to know what happened. */
const keptOfSaid = 200
/** The failure as Redis keeps it, or none when the health schema refuses it (it is then not written). */
const encodeFailure = (failure: Failure.Failure): Option.Option<string> =>
  Option.map(Result.getSuccess(Schema.encodeResult(Failure.Failure)(failure)), (encoded) => {
    const said = encoded.said.length <= keptOfSaid ? encoded.said : `${encoded.said.slice(0, keptOfSaid)}…`
    return JSON.stringify({ ...encoded, said })
  })

/** A time a Date can hold (epoch millis), as the file store's schema has it: any other is never written. */
const isInstant = (at: number) => Number.isFinite(at) && at >= 0 && at <= 8.64e15

/**
 * The URL a person may read: scheme, host, port and database, never a user or a password.
 *
 * @internal
 */
export const shown = (url: string): string => {
  try {
    const parsed = new URL(url)
    return `${parsed.protocol}//${parsed.hostname}${parsed.port === "" ? "" : `:${parsed.port}`}${
      parsed.pathname === "/" ? "" : parsed.pathname
    }`
  } catch {
    return "redis"
  }
}

const passwordOf = (url: string) => {
  try {
    return decodeURIComponent(new URL(url).password)
  } catch {
    return ""
  }
}

/** How long a place's hash lives after its last failure when nothing else removes it. */
const hashLifetime = Duration.toMillis(Duration.days(1))

/** How long a healthy admission read from Redis is trusted while the change channel is up. */
const cachedFor = 1_000

/** @internal */
export const make = (options: RedisHealth.Options): Effect.Effect<Health.Health["Service"], never, Scope.Scope> =>
  Effect.gen(function*() {
    const notices = yield* Notice.Notices
    const breaker = options.breaker ?? Health.defaultBreaker
    const prefix = options.prefix ?? "fallback:health:"
    const timeout = Duration.toMillis(options.timeout ?? Duration.seconds(30))
    const retryAfter = Duration.toMillis(options.retry ?? Duration.seconds(1))
    const channel = `${prefix}changed`
    const placesKey = `${prefix}places`
    const url = Redacted.value(options.url)
    const store = `Redis at ${shown(url)}`
    const secrets = [options.password === undefined ? "" : Redacted.value(options.password), passwordOf(url)]
      .filter((secret) => secret.length > 0)
    const failuresToPark = breaker.failures
    const park = Duration.toMillis(breaker.park)
    const lease = Duration.toMillis(breaker.trial ?? breaker.park)
    const by = Health.owner()
    const local = Health.memory(breaker)

    // Healthy admissions are cached while the change channel is heard: every change to a place is
    // published, and drops it. `epoch` moves on every drop, so an answer that was on its way while
    // a change was published is not cached.
    const cache = new Map<string, number>()
    let epoch = 0
    let subscribed = false
    const forget = () => {
      epoch += 1
      subscribed = false
      cache.clear()
    }
    const connection = yield* Connection.make({
      url,
      password: options.password === undefined ? undefined : Redacted.value(options.password),
      timeout,
      retryAfter,
      channel,
      changed: (place) => {
        epoch += 1
        cache.delete(place)
      },
      hearing: (heard) => heard ? (subscribed = true) : forget()
    })

    // What Redis last said of places it had parked (as this process's clock reads it: the end of the
    // park and of the trial after it, and the failure behind it). On local health, while Redis is
    // away, such a place is skipped until then: a process on its own health never becomes a second
    // trial of a place Redis has parked, or a request at it.
    const lastParked = new Map<string, { readonly until: number; readonly last: Failure.Failure }>()
    const sawParked = (name: string, until: number, last: Failure.Failure) =>
      lastParked.set(name, { until: Math.max(until, lastParked.get(name)?.until ?? 0), last })
    const onLocal = (name: string, admission: Health.Admission): Health.Admission => {
      const seen = lastParked.get(name)
      if (seen === undefined || admission._tag === "Skip") return admission
      if (seen.until <= Date.now()) {
        lastParked.delete(name)
        return admission
      }
      return { _tag: "Skip", why: "parked", until: seen.until, last: seen.last }
    }

    // Down: Redis did not answer; health is kept in `local` until `retryAt`, then Redis is asked again.
    let down = false
    let retryAt = 0
    const wentDown = (reason: string) =>
      Effect.suspend(() => {
        retryAt = Date.now() + retryAfter
        if (down) return Effect.void
        down = true
        forget()
        const kept = [...lastParked.values()].filter((seen) => seen.until > Date.now()).length
        const also = kept === 0
          ? ""
          : `; ${kept === 1 ? "a place" : `${kept} places`} it last showed parked ${
            kept === 1 ? "stays" : "stay"
          } skipped here until ${kept === 1 ? "its park" : "their parks"} would have ended`
        return notices.publish(Notice.Notice.Sharing({ store, shared: false, reason: `${reason}${also}` }))
      })
    const cameBack = Effect.suspend(() => {
      if (!down) return Effect.void
      down = false
      return notices.publish(Notice.Notice.Sharing({ store, shared: true, reason: "" }))
    })
    // A reason is shown to people: it never carries the password, whichever way it was given.
    const masked = (reason: string) => secrets.reduce((text, secret) => text.split(secret).join("***"), reason)

    /** One operation on Redis (a success), or on this process's health while Redis does not answer (a failure). */
    const shared = <A, B>(
      ask: (redis: Redis.Redis["Service"]) => Effect.Effect<A, Redis.RedisError>,
      onLocal: Effect.Effect<B>
    ): Effect.Effect<Result.Result<A, B>> =>
      Effect.suspend(() => {
        if (down && Date.now() < retryAt) return Effect.map(onLocal, Result.fail)
        return connection.run(ask).pipe(
          Effect.matchEffect({
            onFailure: (away) => Effect.andThen(wentDown(masked(away.reason)), Effect.map(onLocal, Result.fail)),
            onSuccess: (answer) => Effect.as(cameBack, Result.succeed(answer))
          })
        )
      })

    const keys = (place: string) => {
      const key = `${prefix}${place}`
      return [key, `${key}:trial`, `${key}:cool`] as const
    }
    // Times from the server, as this process's clock reads them.
    const toLocal = (serverNow: number, at: number) => at - serverNow + Date.now()

    const admit = (place: Place.Place): Effect.Effect<Health.Admission> =>
      Effect.suspend(() => {
        const name = Place.format(place)
        if (subscribed && !down) {
          const at = cache.get(name)
          if (at !== undefined && Date.now() - at < cachedFor) return Effect.succeed(clean)
        }
        const since = epoch
        const [hash, trial, cool] = keys(name)
        return shared(
          (redis) => redis.eval(scripts.admit)(hash, trial, cool, by, lease, channel, name),
          Effect.map(local.admit(place), (admission) => onLocal(name, admission))
        ).pipe(Effect.map(Result.match({
          onFailure: (admission) => admission,
          onSuccess: ([now, kind, until, last]): Health.Admission => {
            if (kind === "clean") {
              lastParked.delete(name)
              if (since === epoch && subscribed) cache.set(name, Date.now())
              return clean
            }
            cache.delete(name)
            if (kind === "held") {
              lastParked.delete(name)
              return held
            }
            if (kind === "trial") return { _tag: "Trial" }
            const skip: Health.Admission = {
              _tag: "Skip",
              why: kind === "cooling" ? "cooling" : kind === "parked" ? "parked" : "trial",
              until: toLocal(now, until!),
              last: decodeFailure(last)
            }
            // parked: a trial comes after it; out: another's trial, until its lease ends
            if (kind !== "cooling") sawParked(name, skip.until + (kind === "parked" ? lease : 0), skip.last)
            return skip
          }
        })))
      })

    const failed = (place: Place.Place, failed: Health.Failed): Effect.Effect<void> =>
      Effect.suspend(() => {
        const name = Place.format(place)
        cache.delete(name)
        const [hash, trial, cool] = keys(name)
        const coolUntil = Option.getOrUndefined(failed.coolUntil)
        const last = encodeFailure(failed.failure)
        // What the health schema refuses is never written, here or in this process's own health.
        if (Option.isNone(last) || (coolUntil !== undefined && !isInstant(coolUntil))) {
          return Health.notWritten(
            store,
            `the failure at ${name} holds a value health cannot keep (${
              Option.isNone(last) ? "the failure" : "its cooldown's end"
            }); it is not recorded`
          ).pipe(Effect.provideService(Notice.Notices, notices))
        }
        const coolFor = coolUntil === undefined ? 0 : Math.max(0, Math.ceil(coolUntil - Date.now()))
        return shared(
          (redis) =>
            redis.eval(scripts.failed)(
              hash,
              trial,
              cool,
              placesKey,
              by,
              name,
              last.value,
              failed.counts,
              coolFor,
              failuresToPark,
              park,
              hashLifetime,
              channel
            ),
          local.failed(place, failed)
        ).pipe(Effect.map((answer) => {
          if (Result.isFailure(answer)) return
          const [now, parked] = answer.success
          if (parked !== "") sawParked(name, toLocal(now, Number(parked)) + lease, failed.failure)
        }))
      })

    return Health.Health.of({
      admit,
      failed,
      succeeded: (place) =>
        Effect.suspend(() => {
          const name = Place.format(place)
          const [hash, trial, cool] = keys(name)
          return shared(
            (redis) => redis.eval(scripts.succeeded)(hash, trial, cool, placesKey, name, channel),
            local.succeeded(place)
          ).pipe(Effect.map(() => void lastParked.delete(name)))
        }),
      giveBack: (place) =>
        Effect.suspend(() => {
          const name = Place.format(place)
          return shared(
            (redis) => redis.eval(scripts.giveBack)(keys(name)[1], by, channel, name),
            local.giveBack(place)
          ).pipe(Effect.asVoid)
        }),
      clear: (place) =>
        Effect.suspend(() => {
          cache.clear()
          const only = place === undefined ? [] : [Place.format(place)]
          if (place === undefined) lastParked.clear()
          else lastParked.delete(only[0]!)
          return shared(
            (redis) => redis.eval(scripts.clear)(placesKey, prefix, channel, ...only),
            local.clear(place)
          ).pipe(Effect.andThen(local.clear(place)))
        }),
      snapshot: Effect.suspend(() =>
        shared((redis) => redis.eval(scripts.snapshot)(placesKey, prefix), local.snapshot).pipe(
          Effect.map(Result.match({
            onFailure: (all) => all,
            onSuccess: ([now, ...rows]) => {
              const here = Date.now()
              return rows.flatMap((row): Array<Health.PlaceHealth> => {
                const [name, failures, parked, last, cooling, trialUntil, taker] = row as readonly [
                  string,
                  string,
                  string,
                  string,
                  string,
                  string,
                  string
                ]
                const place = Place.parse(name)
                if (Result.isFailure(place)) return []
                const at = (value: string) => value === "" ? undefined : toLocal(now, Number(value))
                const trial = at(trialUntil)
                return [Health.placeHealth({
                  place: place.success,
                  failures: Number(failures),
                  parkedUntil: at(parked),
                  trial: trial === undefined ? undefined : { by: taker, until: trial },
                  coolingUntil: at(cooling),
                  last: decodeFailure(last)
                }, here)]
              })
            }
          }))
        )
      )
    })
  })

const clean: Health.Admission = { _tag: "Go", held: false }
const held: Health.Admission = { _tag: "Go", held: true }
