/**
 * B7 health stores: what one health operation costs in memory, in the file, and in Redis on
 * loopback (a redis-server of the bench's own), and what each store adds to a landing turn (B1's
 * held agent). A landing turn at a healthy place only reads, and Redis's read is cached.
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

import { against, type Figure, figure } from "./figures.js"
import { inEffect } from "./loops.js"
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
    return [
      ...rows("admission at a healthy place"),
      ...rows("a failure written"),
      ...rows("landing turn (Agent.ask, held agent)")
    ]
  } finally {
    await redis.close()
    rmSync(folder, { recursive: true, force: true })
  }
}
