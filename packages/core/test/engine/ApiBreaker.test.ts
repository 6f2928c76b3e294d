/**
 * The `api` preset's breaker on the TestClock: a place that flaps is parked after 3 failures in a
 * row, every call is served by the next place while it is parked (no request to it), one trial
 * probes it after 30 s, and the moment it answers every turn is back at it.
 */
import { describe, expect, it } from "@effect/vitest"
import { Scripted } from "@fallback/testkit"
import { Effect, Fiber, Random } from "effect"
import { TestClock } from "effect/testing"
import { Agent, Preset } from "../../src/index.js"
import { next, work } from "./api.js"
import { world } from "./world.js"

const flapping = (failures: number) =>
  world({
    script: {
      places: { [work]: [...Array.from({ length: failures }, () => Scripted.fail("Unknown")), Scripted.answer("back")] }
    },
    chain: [work, next],
    breaker: Preset.api.breaker
  })

/** A turn, the clock run on until it is over (a 5xx's wait is at most a second). */
const ask = (agent: Agent.Agent, prompt: string) =>
  Effect.gen(function*() {
    const fiber = yield* Effect.forkChild(Agent.ask(agent, prompt))
    yield* TestClock.adjust("2 seconds")
    return yield* Fiber.join(fiber)
  })

const seen = (place: string) => Effect.map(Scripted.Scripted, (scripted) => scripted.seen(place))

describe("api preset: the breaker", () => {
  it.effect("parks a flapping place, serves every call from the next one, probes it, and returns the moment it answers", () =>
    Effect.gen(function*() {
      const agent = yield* Agent.make(work, undefined, Preset.api.options)
      // Two turns of 5xx, each tried once more: the third failure in a row parks the place.
      expect(yield* ask(agent, "1")).toBe(`ok from ${next}`)
      expect(yield* ask(agent, "2")).toBe(`ok from ${next}`)
      const parkedAfter = (yield* seen(work)).turns
      // The go the second turn had already been given there is still taken (the breaker is read
      // when a turn arrives at a place, not between its goes): 4 requests, the place parked at the third.
      expect(parkedAfter).toBe(4)
      // While parked, every call goes to the next place; the parked one sees no request.
      for (let i = 0; i < 5; i++) expect(yield* ask(agent, `parked ${i}`)).toBe(`ok from ${next}`)
      expect((yield* seen(work)).turns).toBe(parkedAfter)
      // 30 s after it was parked: one trial. Its 5xx parks it again at once, with no second go.
      yield* TestClock.adjust("30 seconds")
      expect(yield* ask(agent, "trial")).toBe(`ok from ${next}`)
      expect((yield* seen(work)).turns).toBe(parkedAfter + 1)
      expect(yield* ask(agent, "parked again")).toBe(`ok from ${next}`)
      expect((yield* seen(work)).turns).toBe(parkedAfter + 1)
      // The next trial answers: that turn is answered there, and so is every one after it.
      yield* TestClock.adjust("30 seconds")
      expect(yield* ask(agent, "trial 2")).toBe("back")
      for (let i = 0; i < 3; i++) expect(yield* ask(agent, `back ${i}`)).toBe("back")
      expect((yield* seen(work)).turns).toBe(parkedAfter + 5)
    }).pipe(Effect.provide(flapping(5)), Random.withSeed("breaker")))

  it.effect("a single success clears the count: a place that fails now and then is never parked", () =>
    Effect.gen(function*() {
      const agent = yield* Agent.make(work, undefined, Preset.api.options)
      // Each turn: a 5xx, then the answer on the go after it (two failures never make three in a row).
      for (let i = 0; i < 6; i++) expect(yield* ask(agent, `${i}`)).toBe("back")
      expect((yield* seen(work)).turns).toBe(12)
      expect((yield* seen(next)).turns).toBe(0)
    }).pipe(
      Effect.provide(world({
        script: {
          places: {
            [work]: Array.from(
              { length: 12 },
              (_, i) => i % 2 === 0 ? Scripted.fail("Unknown") : Scripted.answer("back")
            )
          }
        },
        chain: [work, next],
        breaker: Preset.api.breaker
      }))
    ))
})
