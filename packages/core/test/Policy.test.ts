import { describe, expect, it } from "@effect/vitest"
import { Clock, Duration, Effect, Fiber, Random, Result, Schema } from "effect"
import { TestClock } from "effect/testing"
import { Policy } from "../src/index.js"
import { waits } from "../src/internal/policy.js"

const expected = (name: Policy.Name, n: number): Array<number> => {
  const out: Array<number> = []
  let [a, b] = [1, 1]
  for (let i = 0; i < n; i++) {
    const seconds = name === "none" ?
      0 :
      name === "constant" ?
      1 :
      name === "linear" ?
      i + 1 :
      name === "fibonacci"
      ? a
      : 2 ** i
    out.push(Math.min(seconds, 60) * 1000)
    ;[a, b] = [b, a + b]
  }
  return out
}

const Tries = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 40 }))

describe("Policy", () => {
  it.effect.prop(
    "every policy gives one wait per try, the first at most 1 s, none over 60 s, on its exact ladder",
    { tries: Tries, seed: Schema.String },
    ({ seed, tries }) =>
      Effect.gen(function*() {
        for (const name of Policy.names) {
          const got = yield* waits(Policy.toSchedule(new Policy.Retrying({ tries, policy: name }), 0), 100)
          expect(got.length).toBe(tries)
          if (tries > 0) expect(got[0]).toBeLessThanOrEqual(1000)
          for (const wait of got) expect(wait).toBeLessThanOrEqual(60_000)
          const ladder = expected(name === "exponential-jitter" ? "exponential" : name, tries)
          expect(Policy.ladder(name, tries).map(Duration.toMillis)).toEqual(ladder)
          if (name === "exponential-jitter") {
            got.forEach((wait, i) => {
              expect(wait).toBeGreaterThanOrEqual(0)
              expect(wait).toBeLessThan(ladder[i]!)
            })
          } else {
            expect(got).toEqual(ladder)
          }
        }
      }).pipe(Random.withSeed(seed)),
    { arbitrary: { runs: 60 } }
  )

  it.effect.prop(
    "full jitter spreads its waits rather than repeating one",
    { seed: Schema.String },
    ({ seed }) =>
      Effect.gen(function*() {
        const got = yield* waits(Policy.schedule("exponential-jitter"), 40)
        expect(new Set(got).size).toBeGreaterThan(30)
        const ratios = got.map((wait, i) => wait / expected("exponential", 40)[i]!)
        expect(Math.min(...ratios)).toBeLessThan(0.5)
        expect(Math.max(...ratios)).toBeGreaterThan(0.5)
      }).pipe(Random.withSeed(seed)),
    { arbitrary: { runs: 30 } }
  )

  it.effect.prop(
    "with a budget, no attempt starts after it and the last one is as late as the ladder allows",
    {
      tries: Tries,
      name: Policy.Name,
      budget: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 300 })),
      work: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 3000 })),
      seed: Schema.String
    },
    ({ budget, name, seed, tries, work }) =>
      Effect.gen(function*() {
        const retrying = new Policy.Retrying({ tries, policy: name, timeout: Duration.seconds(budget) })
        const starts: Array<number> = []
        const attempt = Clock.currentTimeMillis.pipe(
          Effect.tap((now) => Effect.sync(() => starts.push(now))),
          Effect.andThen(Effect.sleep(Duration.millis(work))),
          Effect.andThen(Effect.fail("down" as const))
        )
        const fiber = yield* Clock.currentTimeMillis.pipe(
          Effect.flatMap((startedAt) => Effect.retry(attempt, Policy.toSchedule(retrying, startedAt))),
          Effect.forkChild
        )
        yield* TestClock.adjust(Duration.hours(2))
        const exit = yield* Fiber.await(fiber)
        expect(exit._tag).toBe("Failure")
        const deadline = budget * 1000
        for (const start of starts) expect(start).toBeLessThanOrEqual(deadline)
        expect(starts.length).toBeLessThanOrEqual(tries + 1)
        if (starts.length < tries + 1 && name !== "exponential-jitter") {
          const nextWait = expected(name, starts.length)[starts.length - 1]!
          expect(starts[starts.length - 1]! + work + nextWait).toBeGreaterThan(deadline)
        }
      }).pipe(Random.withSeed(seed)),
    { arbitrary: { runs: 50 } }
  )

  it.effect("a 10 s budget on exponential tries at 0, 1, 3 and 7 s and does not start the 8 s wait", () =>
    Effect.gen(function*() {
      const starts: Array<number> = []
      const retrying = new Policy.Retrying({ tries: 10, policy: "exponential", timeout: Duration.seconds(10) })
      const fiber = yield* Effect.retry(
        Clock.currentTimeMillis.pipe(
          Effect.tap((now) => Effect.sync(() => starts.push(now))),
          Effect.andThen(Effect.fail("down"))
        ),
        Policy.toSchedule(retrying, 0)
      ).pipe(Effect.forkChild)
      yield* TestClock.adjust(Duration.seconds(7))
      const exit = yield* Fiber.await(fiber)
      expect(starts).toEqual([0, 1000, 3000, 7000])
      expect(exit._tag).toBe("Failure")
    }))

  it("reads the six names and refuses anything else, listing them", () => {
    for (const name of Policy.names) expect(Policy.parse(name)).toEqual(Result.succeed(name))
    const error = Result.getOrThrow(Result.flip(Policy.parse("jitter")))
    expect(error.message).toBe(
      "\"jitter\" is not a policy; choose one of: none, constant, linear, exponential, exponential-jitter, fibonacci"
    )
  })

  it("a step that names no policy gets exponential-jitter and no budget", () => {
    const retrying = Schema.decodeUnknownSync(Policy.Retrying)({ tries: 3 })
    expect(retrying.policy).toBe("exponential-jitter")
    expect(Duration.isZero(retrying.timeout)).toBe(true)
    expect(Schema.encodeSync(Policy.Retrying)(new Policy.Retrying({ tries: 3, timeout: Duration.seconds(90) })))
      .toEqual({ tries: 3, policy: "exponential-jitter", timeout: 90 })
  })
})
