/**
 * B7 health stores: what one health operation costs in memory, in the file, and in Redis on
 * loopback (a redis-server of the bench's own), and what each store adds to a landing turn (B1's
 * held agent). A landing turn at a healthy place only reads, and Redis's read is cached. And how
 * long a cooldown one process writes through Redis takes to be seen by another (issue 24: within
 * 250 ms at p99; LiteLLM polls every second): two Health services, each on connections of its own
 * as two processes would be, the reader holding a cached healthy admission when the write starts.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import { Agent, Backend, Failure, Health, Notice, Place, Steps } from "@fallback/core"
import { RedisHealth } from "@fallback/redis"
import { RedisServer } from "@fallback/testkit"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"

import { against, type Figure, figure, repetitions } from "./figures.js"
import { inEffect } from "./loops.js"
import { cooldownSeen } from "./targets.js"
import { instant } from "./world.js"

const reads = Number(process.env.BENCH_HEALTH_OPS ?? 2_000)
const writes = Math.max(100, Math.floor(reads / 4))
const turns = Number(process.env.BENCH_TURNS ?? 5_000)

const healthy = Place.Place.make({ cli: "claude", model: "a" })
const failing = Place.Place.make({ cli: "bench", model: "failing" })
const failure = new Failure.Unknown({ place: failing, said: Failure.said("bench") })
const neverParks: Health.Breaker = { failures: Number.MAX_SAFE_INTEGER, park: Duration.seconds(1) }
const silent = Layer.succeed(Notice.Notices, { publish: () => Effect.void, watch: Effect.succeed(Stream.empty) })

const world = (health: Layer.Layer<Health.Health>) =>
  Layer.mergeAll(Backend.Backends.layer([instant("claude")]), Steps.Steps.layerMemory, health, silent)

/** One store's figures: an admission at a healthy place, a failure written, a landing turn. */
const store = (name: string, health: Layer.Layer<Health.Health>) =>
  Effect.gen(function*() {
    const service = yield* Health.Health
    const admit = yield* inEffect(reads, service.admit(healthy))
    const write = yield* inEffect(writes, service.failed(failing, { failure, counts: true, coolUntil: Option.none() }))
    const landing = yield* Effect.scoped(Effect.gen(function*() {
      const agent = yield* Agent.make(healthy, undefined, { moved: "returns" })
      return yield* inEffect(turns, Agent.ask(agent, "hi"))
    }))
    return [
      figure("B7", `${name}: admission at a healthy place`, "µs", admit),
      figure("B7", `${name}: a failure written`, "µs", write),
      figure("B7", `${name}: landing turn (Agent.ask, held agent)`, "µs", landing)
    ]
  }).pipe(Effect.provide(world(health)))

const sightings = Number(process.env.BENCH_HEALTH_SIGHTINGS ?? 200)

/** The p99 of `samples`. */
const p99 = (samples: ReadonlyArray<number>) =>
  [...samples].sort((a, b) => a - b)[Math.ceil(samples.length * 0.99) - 1]!

/** Milliseconds from the start of a cooldown's write by `writer` to `reader`'s first admission that skips it. */
const seen = (writer: Health.Health["Service"], reader: Health.Health["Service"]) =>
  Effect.gen(function*() {
    const until = (tag: Health.Admission["_tag"]) =>
      Effect.gen(function*() {
        while ((yield* reader.admit(failing))._tag !== tag) yield* Effect.sleep("1 millis")
      })
    yield* until("Go")
    const start = performance.now()
    yield* writer.failed(failing, { failure, counts: false, coolUntil: Option.some(Date.now() + 60_000) })
    yield* until("Skip")
    const took = performance.now() - start
    yield* writer.succeeded(failing)
    return took
  })

/** B7's propagation: each repetition's p99 over `sightings` cooldowns. */
const propagation = (url: string) =>
  Effect.gen(function*() {
    const open = RedisHealth.make({ url: Redacted.make(url), prefix: "bench:seen:", breaker: neverParks })
    const writer = yield* open
    const reader = yield* open
    const runs: Array<number> = []
    for (let run = 0; run < repetitions; run++) {
      const times: Array<number> = []
      for (let i = 0; i < sightings; i++) times.push(yield* seen(writer, reader))
      runs.push(p99(times))
    }
    return figure("B7", cooldownSeen, "ms", runs, `p99 of ${sightings} cooldowns a repetition`)
  }).pipe(Effect.provide(silent), Effect.scoped)

export const health = async (): Promise<Array<Figure>> => {
  const folder = mkdtempSync(join(tmpdir(), "fallback-bench-health-"))
  const redis = await RedisServer.start()
  try {
    const figures = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      // the first store measured would also pay for warming the engine up: memory goes twice
      yield* store("memory", Health.Health.layerMemory(neverParks))
      const memory = yield* store("memory", Health.Health.layerMemory(neverParks))
      const file = yield* store(
        "file",
        Health.Health.layerFile(join(folder, "health.json"), neverParks).pipe(
          Layer.provide(Layer.merge(NodeFileSystem.layer, NodePath.layer))
        )
      )
      const shared = yield* store(
        "Redis (loopback)",
        RedisHealth.layer({ url: Redacted.make(redis.url), breaker: neverParks }).pipe(Layer.provide(silent))
      )
      return [...memory, ...file, ...shared]
    })))
    // Each landing turn against memory's; each operation against memory's same operation.
    const rows = (kind: string) => against(figures.filter((f) => f.what.endsWith(kind)), `memory: ${kind}`)
    const seenAt = await Effect.runPromise(propagation(redis.url))
    return [
      ...rows("admission at a healthy place"),
      ...rows("a failure written"),
      ...rows("landing turn (Agent.ask, held agent)"),
      seenAt
    ]
  } finally {
    await redis.close()
    rmSync(folder, { recursive: true, force: true })
  }
}
