/**
 * B7 health stores: what one health operation costs in memory, in the file, and in Redis on
 * loopback (a redis-server of the bench's own), and what each store adds to a landing turn (B1's
 * held agent). A landing turn at a healthy place only reads, and Redis's read is cached. And how
 * long a cooldown one process writes through Redis takes to be seen by another (issue 24: within
 * 250 ms at p99; LiteLLM polls every second): a second process writes it, this one reads, holding
 * a cached healthy admission when the write starts.
 */
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"

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
import { build } from "esbuild"

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

/**
 * Another process sharing health through Redis: the redis package's test worker, bundled, at place
 * `local/seen` (its breaker never parks), answering a line per command.
 */
const otherProcess = async (folder: string, url: string, prefix: string) => {
  const file = join(folder, "worker.mjs")
  await build({
    entryPoints: [fileURLToPath(new URL("../packages/redis/test/fixtures/worker.ts", import.meta.url))],
    bundle: true,
    platform: "node",
    format: "esm",
    conditions: ["@fallback/source"],
    outfile: file,
    logLevel: "warning",
    banner: {
      js:
        "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);"
    }
  })
  const config = { store: "redis", url, prefix, mock: "http://127.0.0.1:9", model: "seen", failures: 1e9, park: 1_000 }
  const child = spawn(process.execPath, [file, JSON.stringify({ ...config, trial: 1_000 })], {
    stdio: ["pipe", "pipe", "inherit"]
  })
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]()
  const next = async () => {
    const line = await lines.next()
    if (line.done === true) throw new Error("the other process ended")
  }
  await next()
  return {
    /** Sends `command`; the returned promise is its answer. */
    ask: (command: object) => {
      child.stdin!.write(`${JSON.stringify(command)}\n`)
      return next()
    },
    stop: () => new Promise<void>((resolve) => child.once("close", () => resolve()).stdin!.end())
  }
}

/**
 * B7's propagation: each repetition's p99 over `sightings` cooldowns, each written by the other
 * process and read here by admissions a millisecond apart, from a cached healthy admission.
 */
const propagation = (folder: string, url: string) =>
  Effect.gen(function*() {
    const prefix = "bench:seen:"
    const seenAt = Place.Place.make({ cli: "local", model: "seen" })
    const reader = yield* RedisHealth.make({ url: Redacted.make(url), prefix, breaker: neverParks })
    const other = yield* Effect.acquireRelease(
      Effect.promise(() => otherProcess(folder, url, prefix)),
      (other) => Effect.promise(other.stop)
    )
    const until = (tag: Health.Admission["_tag"]) =>
      Effect.gen(function*() {
        while ((yield* reader.admit(seenAt))._tag !== tag) yield* Effect.sleep("1 millis")
      })
    const runs: Array<number> = []
    for (let run = 0; run < repetitions; run++) {
      const times: Array<number> = []
      for (let i = 0; i < sightings; i++) {
        yield* until("Go")
        const start = performance.now()
        const written = other.ask({ op: "fail", coolFor: 60_000 })
        yield* until("Skip")
        times.push(performance.now() - start)
        yield* Effect.promise(() => written)
        yield* reader.succeeded(seenAt)
      }
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
    const propagated = await Effect.runPromise(propagation(folder, redis.url))
    return [
      ...rows("admission at a healthy place"),
      ...rows("a failure written"),
      ...rows("landing turn (Agent.ask, held agent)"),
      propagated
    ]
  } finally {
    await redis.close()
    rmSync(folder, { recursive: true, force: true })
  }
}
