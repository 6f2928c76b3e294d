import { describe, expect, it } from "@effect/vitest"
import * as Failure from "@fallback/core/Failure"
import type * as Health from "@fallback/core/Health"
import * as Notice from "@fallback/core/Notice"
import * as Place from "@fallback/core/Place"
import * as RedisServer from "@fallback/testkit/RedisServer"
import { Duration, Effect, Layer, Option, Redacted, Schema } from "effect"
import { createClient } from "redis"
import { afterAll, beforeAll } from "vitest"

import { RedisHealth } from "../src/index.js"

let server: RedisServer.RedisServer
let client: ReturnType<typeof createClient> | undefined

beforeAll(async () => {
  server = await RedisServer.start()
  client = createClient({ url: server.url, RESP: 2 })
  client.on("error", () => {})
  await client.connect()
}, 60_000)

afterAll(async () => {
  client?.destroy()
  await server?.close()
})

/** A command on a connection of the test's own, as redis-cli would send it. */
const raw = <A>(...command: Array<string>) => Effect.promise(() => client!.sendCommand(command) as Promise<A>)

const place = Place.Place.make({ cli: "claude", account: "work", model: "opus" })
const healthy = Place.Place.make({ cli: "local", model: "qwen3:8b" })
const broken = new Failure.Unknown({ place, said: Failure.said("500 from Bearer abcdefghijklmnop1234") })
// Real Redis keeps real time: parks long enough that a busy machine does not see one end early.
const breaker: Health.Breaker = { failures: 3, park: Duration.millis(1_500), trial: Duration.millis(2_000) }

const heard: Array<string> = []
const notices = Layer.succeed(Notice.Notices, {
  publish: (notice) => Effect.sync(() => void heard.push(Notice.format(notice))),
  watch: Effect.die("not watched")
})

let prefixes = 0
/** Two Health services on one prefix: what two processes (or hosts) see. */
const two = (options: Partial<RedisHealth.Options> = {}) =>
  Effect.gen(function*() {
    const prefix = `test${prefixes++}:`
    // a generous timeout: a busy machine does not make Redis look down, unless a test says otherwise
    const open = RedisHealth.make({
      url: Redacted.make(server.url),
      prefix,
      breaker,
      timeout: Duration.seconds(2),
      ...options
    })
    return { prefix, one: yield* open, other: yield* open }
  }).pipe(Effect.provide(notices))

const fail = (health: Health.Health["Service"], times = 1, coolUntil: Option.Option<number> = Option.none()) =>
  Effect.repeat(health.failed(place, { failure: broken, counts: true, coolUntil }), { times: times - 1 })
const tag = (health: Health.Health["Service"], at = place) => Effect.map(health.admit(at), (a) => a._tag)

const evals = Effect.map(
  raw<string>("INFO", "commandstats"),
  (stats) => [...stats.matchAll(/cmdstat_(evalsha|eval):calls=(\d+)/g)].reduce((sum, m) => sum + Number(m[2]), 0)
)

describe("Health kept in Redis", () => {
  it.live("a breaker opened by one process is seen by another; one trial per park; its failure parks again, its success clears", () =>
    Effect.gen(function*() {
      const { one, other, prefix } = yield* two()
      yield* fail(one, 2)
      expect(yield* other.admit(place)).toEqual({ _tag: "Go", held: true })
      yield* fail(other)
      expect(yield* tag(one)).toBe("Skip")
      yield* fail(one, 3)
      expect(yield* raw("HGET", `${prefix}claude@work/opus`, "opens")).toBe("1")
      const [entry] = yield* other.snapshot
      expect([Place.format(entry!.place), entry!.failures, entry!.breaker]).toEqual(["claude@work/opus", 3, "parked"])
      expect(entry!.last.message).toContain("Bearer ***")
      yield* Effect.sleep("1600 millis")
      const taken = yield* Effect.all([tag(one), tag(other), tag(one), tag(other)], { concurrency: "unbounded" })
      expect(taken.filter((t) => t === "Trial")).toHaveLength(1)
      const taker = taken.indexOf("Trial") % 2 === 0 ? one : other
      expect((yield* other.snapshot)[0]!.breaker).toBe("trial")
      yield* fail(taker)
      expect(yield* one.admit(place)).toMatchObject({ _tag: "Skip", why: "parked" })
      expect(yield* raw("HMGET", `${prefix}claude@work/opus`, "opens", "reparks", "trials")).toEqual(
        [
          "1",
          "1",
          "1"
        ]
      )
      yield* Effect.sleep("1600 millis")
      expect(yield* tag(other)).toBe("Trial")
      yield* other.succeeded(place)
      expect(yield* one.admit(place)).toEqual({ _tag: "Go", held: false })
      expect(yield* one.snapshot).toEqual([])
    }))

  it.live("a trial is leased: given back at once by its taker, or when the lease ends", () =>
    Effect.gen(function*() {
      const { one, other } = yield* two()
      yield* fail(one, 3)
      yield* Effect.sleep("1600 millis")
      expect(yield* tag(one)).toBe("Trial")
      expect(yield* other.admit(place)).toMatchObject({ _tag: "Skip", why: "trial" })
      yield* other.giveBack(place)
      expect(yield* tag(other)).toBe("Skip")
      yield* one.giveBack(place)
      expect(yield* tag(other)).toBe("Trial")
      expect(yield* tag(one)).toBe("Skip")
      yield* Effect.sleep("2100 millis")
      expect(yield* tag(one)).toBe("Trial")
    }))

  it.live("a cooldown is a key that expires; clear forgets a place, or every place", () =>
    Effect.gen(function*() {
      const { one, other, prefix } = yield* two()
      yield* one.failed(place, { failure: broken, counts: false, coolUntil: Option.some(Date.now() + 60_000) })
      expect(yield* other.admit(place)).toMatchObject({ _tag: "Skip", why: "cooling" })
      const ttl = yield* raw<number>("PTTL", `${prefix}claude@work/opus:cool`)
      expect(ttl).toBeGreaterThan(50_000)
      expect(ttl).toBeLessThanOrEqual(60_000)
      yield* one.failed(healthy, { failure: broken, counts: true, coolUntil: Option.none() })
      yield* other.clear(place)
      expect(yield* tag(one)).toBe("Go")
      expect((yield* one.snapshot).map((entry) => Place.format(entry.place))).toEqual(["local/qwen3:8b"])
      yield* one.clear()
      expect(yield* other.snapshot).toEqual([])
      expect(yield* raw("KEYS", `${prefix}*`)).toEqual([])
    }))

  it.live("Redis keeps what a backend said as the file does: a short excerpt, secrets masked, never a whole echoed prompt", () =>
    Effect.gen(function*() {
      const { one, prefix } = yield* two()
      const echoed = new Failure.Unknown({
        place,
        said: Failure.said(`Bearer abcdefghijklmnop1234 ${"the prompt ".repeat(500)}`)
      })
      yield* one.failed(place, { failure: echoed, counts: true, coolUntil: Option.none() })
      const last = yield* raw<string | null>("HGET", `${prefix}claude@work/opus`, "last")
      expect(last!.length).toBeLessThan(600)
      expect(last).toContain("Bearer ***")
      expect(last).not.toContain("abcdefghijklmnop1234")
      expect((yield* one.snapshot)[0]!.last._tag).toBe("Unknown")
    }))

  it.live("an admission at a healthy place writes nothing, and is cached until a change is published", () =>
    Effect.gen(function*() {
      const { one, other, prefix } = yield* two()
      expect(yield* one.admit(healthy)).toEqual({ _tag: "Go", held: false })
      const before = yield* evals
      for (let i = 0; i < 100; i++) expect(yield* one.admit(healthy)).toEqual({ _tag: "Go", held: false })
      expect(yield* evals).toBe(before)
      expect(yield* raw("KEYS", `${prefix}*`)).toEqual([])
      for (let i = 0; i < 3; i++) {
        yield* other.failed(healthy, { failure: broken, counts: true, coolUntil: Option.none() })
      }
      yield* Effect.sleep("50 millis")
      expect(yield* one.admit(healthy)).toMatchObject({ _tag: "Skip", why: "parked" })
    }))

  it.live("a change published while the change channel was cut is not missed: what was cached is dropped then", () =>
    Effect.gen(function*() {
      const { one, prefix } = yield* two()
      expect(yield* one.admit(healthy)).toEqual({ _tag: "Go", held: false })
      // In one step, Redis cuts every subscriber and then the place is parked and the change
      // published: no subscriber hears it.
      const [seconds] = yield* raw<[string, string]>("TIME")
      const key = `${prefix}${Place.format(healthy)}`
      const last = Schema.encodeSync(Schema.fromJsonString(Failure.Failure))(broken)
      yield* raw("MULTI")
      yield* raw("CLIENT", "KILL", "TYPE", "pubsub")
      yield* raw("HSET", key, "place", Place.format(healthy), "failures", "3", "last", last)
      yield* raw("HSET", key, "parked", String(Number(seconds) * 1000 + 60_000))
      yield* raw("PUBLISH", `${prefix}changed`, Place.format(healthy))
      yield* raw("EXEC")
      yield* Effect.sleep("50 millis")
      expect(yield* one.admit(healthy)).toMatchObject({ _tag: "Skip", why: "parked" })
    }))

  it.live("Redis away after it showed a place parked: on its own health this process skips the place until its park and trial would have ended, and says so", () =>
    Effect.gen(function*() {
      heard.length = 0
      const { one, other } = yield* two({ timeout: Duration.seconds(1), retry: Duration.millis(100) })
      yield* fail(one, 3)
      expect(yield* other.admit(place)).toMatchObject({ _tag: "Skip", why: "parked" })
      yield* Effect.promise(() => server.stop())
      yield* Effect.addFinalizer(() => Effect.promise(() => server.start()))
      // Redis's park (1.5 s) and the trial after it (2 s) are not this process's to hand out
      const local = yield* other.admit(place)
      expect(local).toMatchObject({ _tag: "Skip", why: "parked" })
      expect(heard).toEqual([
        expect.stringMatching(
          /did not answer \(.+; a place it last showed parked stays skipped here until its park would have ended\); health is kept in this process until it does$/
        )
      ])
      expect(yield* tag(one)).toBe("Skip")
      // Then failing open, as before: a request may go there from this process's own health.
      yield* Effect.sleep(Duration.millis(Math.max(0, (local as { until: number }).until - Date.now() + 50)))
      expect(yield* other.admit(place)).toEqual({ _tag: "Go", held: false })
    }))

  it.live("a failure whose cooldown no Date holds is written nowhere: said, and Redis left as it was", () =>
    Effect.gen(function*() {
      heard.length = 0
      const { one, prefix } = yield* two()
      yield* fail(one, 1, Option.some(1e308))
      expect(heard).toEqual([
        "Redis at " + server.url +
        " was not changed (the failure at claude@work/opus holds a value health cannot keep (its cooldown's end); it is not recorded)"
      ])
      expect(yield* raw("EXISTS", `${prefix}${Place.format(place)}`)).toBe(0)
      expect(yield* tag(one)).toBe("Go")
    }))

  it.live("Redis stopped: every operation carries on in this process, one notice; Redis back: shared again", () =>
    Effect.gen(function*() {
      heard.length = 0
      const { one, other } = yield* two({ timeout: Duration.seconds(1), retry: Duration.millis(100) })
      yield* fail(one, 2)
      yield* Effect.promise(() => server.stop())
      for (let i = 0; i < 20; i++) {
        expect(yield* tag(one, healthy)).toBe("Go")
        yield* fail(one)
      }
      expect(yield* tag(one)).toBe("Skip")
      expect(heard.filter((line) => line.includes("did not answer"))).toHaveLength(1)
      expect(heard[0]).toMatch(
        /^Redis at redis:\/\/127\.0\.0\.1:\d+ did not answer \(.+\); health is kept in this process until it does$/
      )
      yield* Effect.promise(() => server.start())
      yield* Effect.sleep("1500 millis")
      expect(yield* other.admit(place)).toEqual({ _tag: "Go", held: false })
      yield* fail(other, 3)
      expect(yield* tag(one)).toBe("Skip")
      expect(heard.filter((line) => line.includes("again"))).toEqual([
        expect.stringMatching(/^health is shared through Redis at redis:\/\/127.0.0.1:\d+ again$/)
      ])
    }))

  it.live("Redis not there when the store opens: operations carry on here, one notice; Redis started: shared again", () =>
    Effect.gen(function*() {
      heard.length = 0
      yield* Effect.promise(() => server.stop())
      let started = false
      yield* Effect.addFinalizer(() => started ? Effect.void : Effect.promise(() => server.start()))
      const { one, other } = yield* two({ timeout: Duration.seconds(1), retry: Duration.millis(100) })
      yield* fail(one, 3)
      expect(yield* tag(one)).toBe("Skip")
      expect(yield* tag(other)).toBe("Go")
      expect(heard.filter((line) => line.includes("did not answer"))).toHaveLength(2)
      yield* Effect.promise(() => server.start())
      started = true
      let shared = yield* tag(other)
      yield* fail(one, 3)
      for (let tries = 0; shared !== "Skip" && tries < 50; tries++) {
        yield* Effect.sleep("100 millis")
        yield* fail(one, 3)
        shared = yield* tag(other)
      }
      expect(shared).toBe("Skip")
      expect(heard.filter((line) => line.endsWith("again"))).toHaveLength(2)
    }))

  it.live("Redis that does not answer (stopped with SIGSTOP): operations carry on here after the timeout, one notice; answering again: shared again", () =>
    Effect.gen(function*() {
      heard.length = 0
      const { one, prefix } = yield* two()
      // only this one is impatient: the writer above keeps the generous timeout
      const other = yield* RedisHealth.make({
        url: Redacted.make(server.url),
        prefix,
        breaker,
        timeout: Duration.millis(100),
        retry: Duration.millis(100)
      }).pipe(Effect.provide(notices))
      yield* fail(one, 3)
      server.pause()
      yield* Effect.addFinalizer(() => Effect.sync(() => server.resume()))
      for (let i = 0; i < 5; i++) expect(yield* tag(other, healthy)).toBe("Go")
      expect(yield* tag(other)).toBe("Go")
      expect(heard).toHaveLength(1)
      expect(heard[0]).toMatch(/did not answer \(no answer within 100 ms\)/)
      server.resume()
      yield* Effect.sleep("300 millis")
      let shared = yield* other.admit(place)
      for (let tries = 0; shared._tag !== "Skip" && tries < 50; tries++) {
        yield* Effect.sleep("100 millis")
        shared = yield* other.admit(place)
      }
      expect(shared).toMatchObject({ _tag: "Skip", why: "parked" })
      expect(heard.at(-1)).toMatch(/^health is shared through Redis at .* again$/)
    }))
})
