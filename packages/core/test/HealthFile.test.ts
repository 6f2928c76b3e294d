import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Fiber, FileSystem, Layer, Option, Path } from "effect"
import * as TestClock from "effect/testing/TestClock"
import { Failure, Health, Notice, Place } from "../src/index.js"
import * as healthFile from "../src/internal/store/healthFile.js"
import * as fc from "./fixtures/arbitrary.js"

const place = Place.Place.make({ cli: "claude", account: "work", model: "opus" })
const healthy = Place.Place.make({ cli: "codex", model: "gpt-5" })
const limited = new Failure.RateLimited({ place, said: Failure.said("429 from Bearer abcdefghijklmnop1234") })

const Node = Layer.merge(NodeFileSystem.layer, NodePath.layer)

/** Two independent Health services on one file: what two processes of the command line see. */
const twoOnOneFile = Effect.gen(function*() {
  const fs = yield* FileSystem.FileSystem
  const file = (yield* Path.Path).join(yield* fs.makeTempDirectoryScoped({ prefix: "fallback-health-" }), "health.json")
  const open = Effect.provide(Health.Health, Health.Health.layerFile(file))
  return { file, fs, one: yield* open, other: yield* open }
}).pipe(Effect.provide(Node))

describe("Health kept in a file", () => {
  it.effect("a park recorded by one process is seen by the next, and the trial is handed out once", () =>
    Effect.gen(function*() {
      const { one, other } = yield* twoOnOneFile
      for (let i = 0; i < 5; i++) yield* one.failed(place, { failure: limited, counts: true, coolUntil: Option.none() })
      expect(yield* other.admit(place)).toMatchObject({ _tag: "Skip", why: "parked", until: 60_000 })
      const [entry] = yield* other.snapshot
      expect([Place.format(entry!.place), entry!.failures, entry!.breaker]).toEqual(["claude@work/opus", 5, "parked"])
      expect(entry!.last.message).toContain("rate-limited")
      yield* TestClock.adjust(Duration.seconds(60))
      expect((yield* one.admit(place))._tag).toBe("Trial")
      expect(yield* other.admit(place)).toMatchObject({ _tag: "Skip", why: "trial" })
      yield* other.succeeded(place)
      expect(yield* one.admit(place)).toEqual({ _tag: "Go", held: false })
      expect(yield* one.snapshot).toEqual([])
    }))

  it.effect("a turn that lands at a healthy place writes nothing", () =>
    Effect.gen(function*() {
      const { file, fs, one } = yield* twoOnOneFile
      expect(yield* one.admit(healthy)).toEqual({ _tag: "Go", held: false })
      yield* one.succeeded(healthy)
      expect(yield* fs.exists(file)).toBe(false)
    }))

  it.effect("a trial whose taker never answered is given back after another park", () =>
    Effect.gen(function*() {
      const { one, other } = yield* twoOnOneFile
      for (let i = 0; i < 5; i++) yield* one.failed(place, { failure: limited, counts: true, coolUntil: Option.none() })
      yield* TestClock.adjust(Duration.seconds(60))
      expect((yield* one.admit(place))._tag).toBe("Trial")
      yield* TestClock.adjust(Duration.seconds(59))
      expect((yield* other.admit(place))._tag).toBe("Skip")
      yield* TestClock.adjust(Duration.seconds(1))
      expect((yield* other.admit(place))._tag).toBe("Trial")
    }))

  it.effect("the file holds no secret, and a file that does not read counts as nothing recorded", () =>
    Effect.gen(function*() {
      const { file, fs, one } = yield* twoOnOneFile
      yield* one.failed(place, { failure: limited, counts: true, coolUntil: Option.some(30_000) })
      const text = yield* fs.readFileString(file)
      expect(text).toContain("Bearer ***")
      expect(text).not.toContain("abcdefghijklmnop1234")
      expect(((yield* fs.stat(file)).mode & 0o777).toString(8)).toBe("600")
      yield* fs.writeFileString(file, "{ not json")
      expect(yield* one.admit(place)).toEqual({ _tag: "Go", held: false })
      yield* one.failed(place, { failure: limited, counts: true, coolUntil: Option.none() })
      expect((yield* one.snapshot).map((entry) => entry.failures)).toEqual([1])
    }).pipe(Effect.provide(Node)))

  it.effect("a change that cannot be written (its lock held by a running process a minute) is said, and no trial is handed out", () =>
    Effect.gen(function*() {
      const { file, fs, one, other } = yield* twoOnOneFile
      const heard: Array<string> = []
      const listening = Effect.provideService(Notice.Notices, {
        publish: (notice) => Effect.sync(() => void heard.push(Notice.format(notice))),
        watch: Effect.die("not watched")
      })
      for (let i = 0; i < 5; i++) yield* one.failed(place, { failure: limited, counts: true, coolUntil: Option.none() })
      yield* TestClock.adjust(Duration.seconds(60))
      const before = yield* fs.readFileString(file)
      // a running process (this one, by its id) holds the lock and never lets it go
      yield* fs.writeFileString(`${file}.lock`, `${process.pid} held`)
      const waited = <A>(effect: Effect.Effect<A>) =>
        Effect.gen(function*() {
          const fiber = yield* Effect.forkChild(listening(effect))
          // the wait is bounded by the TestClock: a minute of it, in steps the lock's reads can follow
          for (let steps = 0; steps < 200 && fiber.pollUnsafe() === undefined; steps++) {
            yield* TestClock.adjust(Duration.seconds(1))
            yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 2)))
          }
          return yield* Fiber.join(fiber)
        })
      expect(yield* waited(other.admit(place))).toMatchObject({ _tag: "Skip", why: "parked" })
      yield* waited(other.failed(place, { failure: limited, counts: true, coolUntil: Option.none() }))
      expect(heard).toEqual([
        `the health file ${file} was not changed (its lock was held by process ${process.pid} for 1m; the trial at claude@work/opus is not taken, and the place is skipped)`,
        `the health file ${file} was not changed (its lock was held by process ${process.pid} for 1m; the failure at claude@work/opus is not recorded)`
      ])
      expect(yield* fs.readFileString(file)).toBe(before)
      yield* fs.remove(`${file}.lock`)
      expect((yield* other.admit(place))._tag).toBe("Trial")
      expect(yield* one.admit(place)).toMatchObject({ _tag: "Skip", why: "trial" })
    }).pipe(Effect.provide(Node)))

  it.effect("a failure whose cooldown no Date holds is refused by the health schema: said, and the file left as it was", () =>
    Effect.gen(function*() {
      const { file, fs, one } = yield* twoOnOneFile
      const heard: Array<string> = []
      yield* one.failed(place, { failure: limited, counts: true, coolUntil: Option.none() })
      const before = yield* fs.readFileString(file)
      yield* one.failed(place, { failure: limited, counts: true, coolUntil: Option.some(1e308) }).pipe(
        Effect.provideService(Notice.Notices, {
          publish: (notice) => Effect.sync(() => void heard.push(Notice.format(notice))),
          watch: Effect.die("not watched")
        })
      )
      expect(heard).toEqual([
        `the health file ${file} was not changed (it holds a value health cannot keep (places.0.coolingUntil); the failure at claude@work/opus is not recorded)`
      ])
      expect(yield* fs.readFileString(file)).toBe(before)
      expect((yield* one.snapshot).map((entry) => entry.failures)).toEqual([1])
    }).pipe(Effect.provide(Node)))

  // Whatever numbers a change carries (a provider's header read into a cooldown, a clock gone wrong),
  // the file is written only with what reads back as itself; anything else is refused.
  it.prop(
    "a book is written only when it reads back the same, and refused otherwise",
    [fc.array(
      fc.record({
        failures: fc.oneof(fc.nat(), fc.integer(), fc.double()),
        parkedUntil: fc.option(fc.oneof(fc.double(), fc.constantFrom(1e308, 9e15, 8.64e15, -1, Number.NaN)), {
          nil: undefined
        }),
        coolingUntil: fc.option(fc.oneof(fc.double(), fc.constantFrom(1e308, 9e12, 8.64e15 + 1, Infinity)), {
          nil: undefined
        })
      }),
      { maxLength: 3 }
    )],
    ([drawn]) => {
      const book = new Map(drawn.map((entry, i) => {
        const at = Place.Place.make({ cli: "claude", account: `a${i}`, model: "opus" })
        return [Place.format(at), { place: at, ...entry, trial: undefined, last: limited }] as const
      }))
      const breaker = { failures: 5, parkMillis: 60_000, trialMillis: 60_000 }
      const written = healthFile.encode(book)
      if (written._tag === "Failure") {
        expect(written.failure.reason).toMatch(/^it holds a value health cannot keep/)
        return
      }
      const read = healthFile.decode(Option.some(written.success), breaker, 0)
      expect(
        [...read.values()].map(({ coolingUntil, failures, parkedUntil }) => ({ failures, parkedUntil, coolingUntil }))
      )
        .toEqual(drawn)
    },
    { arbitrary: { runs: 300 } }
  )
})
