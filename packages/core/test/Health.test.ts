import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Option } from "effect"
import * as TestClock from "effect/testing/TestClock"
import { Failure, Health, Place } from "../src/index.js"

const place = Place.Place.make({ cli: "claude", account: "work", model: "opus" })
const unknown = new Failure.Unknown({ place, said: Failure.said("boom") })
const fail = (health: Health.Health.Service, times = 1) =>
  Effect.repeat(health.failed(place, { failure: unknown, counts: true, coolUntil: Option.none() }), {
    times: times - 1
  })
const admitted = (health: Health.Health.Service) => Effect.map(health.admit(place), (a) => a._tag)

const run = <A, E>(effect: (health: Health.Health.Service) => Effect.Effect<A, E>) =>
  Effect.flatMap(Health.Health, effect).pipe(Effect.provide(Health.Health.layerMemory()))

describe("Health", () => {
  it.effect("4 failures in a row leave a place in rotation; the 5th parks it for 60 s", () =>
    run((health) =>
      Effect.gen(function*() {
        yield* fail(health, 4)
        expect(yield* admitted(health)).toBe("Go")
        yield* fail(health)
        expect(yield* health.admit(place)).toEqual({ _tag: "Skip", why: "parked", until: 60_000, last: unknown })
        const [entry] = yield* health.snapshot
        expect([entry!.failures, entry!.breaker, entry!.parkedUntil]).toEqual([5, "parked", Option.some(60_000)])
      })
    ))

  it.effect("after the park exactly one trial goes through; others skip while it is out", () =>
    run((health) =>
      Effect.gen(function*() {
        yield* fail(health, 5)
        yield* TestClock.adjust("59999 millis")
        expect(yield* admitted(health)).toBe("Skip")
        yield* TestClock.adjust("1 millis")
        expect(yield* admitted(health)).toBe("Trial")
        expect(yield* health.admit(place)).toMatchObject({ _tag: "Skip", why: "trial" })
        expect((yield* health.snapshot)[0]!.breaker).toBe("trial")
      })
    ))

  it.effect("a trial that succeeds clears the place to a clean slate", () =>
    run((health) =>
      Effect.gen(function*() {
        yield* fail(health, 5)
        yield* TestClock.adjust("60 seconds")
        expect(yield* admitted(health)).toBe("Trial")
        yield* health.succeeded(place)
        expect(yield* health.snapshot).toEqual([])
        yield* fail(health, 4)
        expect(yield* admitted(health)).toBe("Go")
      })
    ))

  it.effect("a trial that fails parks the place another 60 s at once, not after five more", () =>
    run((health) =>
      Effect.gen(function*() {
        yield* fail(health, 5)
        yield* TestClock.adjust("60 seconds")
        expect(yield* admitted(health)).toBe("Trial")
        yield* fail(health)
        expect(yield* health.admit(place)).toMatchObject({ _tag: "Skip", why: "parked", until: 120_000 })
        yield* TestClock.adjust("60 seconds")
        expect(yield* admitted(health)).toBe("Trial")
      })
    ))

  it.effect("a single success clears the count: a place that fails now and then never trips", () =>
    run((health) =>
      Effect.gen(function*() {
        for (let round = 0; round < 10; round++) {
          yield* fail(health, 4)
          yield* health.succeeded(place)
        }
        expect(yield* admitted(health)).toBe("Go")
        expect(yield* health.snapshot).toEqual([])
      })
    ))

  it.effect("a cooldown skips the place until it ends, and failures that do not count leave the breaker alone", () =>
    run((health) =>
      Effect.gen(function*() {
        yield* health.failed(place, { failure: unknown, counts: false, coolUntil: Option.some(30_000) })
        expect(yield* health.admit(place)).toMatchObject({ _tag: "Skip", why: "cooling", until: 30_000 })
        yield* TestClock.adjust(Duration.millis(30_000))
        expect(yield* health.admit(place)).toEqual({ _tag: "Go", held: true })
        expect((yield* health.snapshot)[0]!.failures).toBe(0)
      })
    ))

  it.effect("a place with nothing against it is admitted without being written", () =>
    run((health) =>
      Effect.gen(function*() {
        expect(yield* health.admit(place)).toEqual({ _tag: "Go", held: false })
        expect(yield* health.snapshot).toEqual([])
      })
    ))

  it.effect("the breaker's numbers can be changed", () =>
    Effect.gen(function*() {
      const health = yield* Health.Health
      yield* fail(health, 2)
      expect(yield* health.admit(place)).toMatchObject({ _tag: "Skip", until: 10_000 })
    }).pipe(Effect.provide(Health.Health.layerMemory({ failures: 2, park: Duration.seconds(10) }))))

  it.effect("a breaker opens once: failures of requests let through before the park do not park it longer", () =>
    run((health) =>
      Effect.gen(function*() {
        yield* fail(health, 5)
        yield* TestClock.adjust("30 seconds")
        yield* fail(health, 3)
        expect(yield* health.admit(place)).toMatchObject({ _tag: "Skip", why: "parked", until: 60_000 })
        expect((yield* health.snapshot)[0]!.failures).toBe(5)
      })
    ))

  it.effect("another service's failure while a trial is out leaves the trial out; the trial's failure parks again", () =>
    Effect.gen(function*() {
      const book = new Map<string, Health.Entry>()
      const keeping: Health.Keeping = {
        get: () => Effect.succeed(book),
        modify: (_, change) =>
          Effect.sync(() => {
            const [answer, patches] = change(book)
            for (const { entry, key } of patches) {
              if (entry === undefined) book.delete(key)
              else book.set(key, entry)
            }
            return answer
          })
      }
      const one = Health.fromKeeping(keeping)
      const other = Health.fromKeeping(keeping)
      yield* fail(one, 5)
      yield* TestClock.adjust("60 seconds")
      expect(yield* admitted(one)).toBe("Trial")
      yield* fail(other)
      expect(yield* other.admit(place)).toMatchObject({ _tag: "Skip", why: "trial" })
      yield* other.giveBack(place)
      expect(yield* other.admit(place)).toMatchObject({ _tag: "Skip", why: "trial" })
      yield* fail(one)
      expect(yield* other.admit(place)).toMatchObject({ _tag: "Skip", why: "parked", until: 120_000 })
    }))

  it.effect("a trial given back goes to the next taker at once; one never answered, once its lease ends", () =>
    Effect.gen(function*() {
      const health = Health.memory({ failures: 5, park: Duration.seconds(60), trial: Duration.seconds(10) })
      yield* fail(health, 5)
      yield* TestClock.adjust("60 seconds")
      expect(yield* admitted(health)).toBe("Trial")
      expect(yield* health.admit(place)).toMatchObject({ _tag: "Skip", why: "trial", until: 70_000 })
      yield* health.giveBack(place)
      expect(yield* admitted(health)).toBe("Trial")
      yield* TestClock.adjust("9999 millis")
      expect(yield* admitted(health)).toBe("Skip")
      yield* TestClock.adjust("1 millis")
      expect(yield* admitted(health)).toBe("Trial")
    }))

  it.effect("clear forgets one place, or every place", () =>
    run((health) =>
      Effect.gen(function*() {
        const other = Place.Place.make({ cli: "codex", model: "gpt-5" })
        yield* fail(health, 5)
        yield* health.failed(other, { failure: unknown, counts: true, coolUntil: Option.some(30_000) })
        yield* health.clear(place)
        expect(yield* health.admit(place)).toEqual({ _tag: "Go", held: false })
        expect((yield* health.snapshot).map((entry) => Place.format(entry.place))).toEqual(["codex/gpt-5"])
        yield* health.clear()
        expect(yield* health.snapshot).toEqual([])
      })
    ))
})
