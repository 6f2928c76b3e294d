/**
 * The one trial after a park, through the engine: a trial whose turn is interrupted before it ends
 * is given back, so the next turn takes it instead of skipping the place for a whole lease.
 */
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Fiber, Stream } from "effect"
import { TestClock } from "effect/testing"
import { Agent, Health, Place, Preset } from "../../src/index.js"

import { Scripted } from "@fallback/testkit"
import { world } from "./world.js"

const requested = "claude/claude-opus-5"
const sonnet = "claude/claude-sonnet-5"
const opus = Place.Place.make({ cli: "claude", model: "claude-opus-5" })
const capabilities = { claude: { models: [{ name: "claude-opus-5" }, { name: "claude-sonnet-5" }] } }

const inBreaker = (places: Scripted.Script["places"]) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  effect.pipe(
    Effect.provide(Preset.breakerSteps(opus)),
    Effect.provide(world({ script: { places, capabilities }, breaker: Preset.breaker.breaker })),
    Effect.provideService(
      ConfigProvider.ConfigProvider,
      ConfigProvider.fromEnv({ env: { LLM_FALLBACK_MODELS: "claude-sonnet-5" } })
    )
  )

const seen = (place: string) => Effect.map(Scripted.Scripted, (scripted) => scripted.seen(place))

describe("the trial after a park", () => {
  it.effect("a trial handed to a turn that is interrupted before it ends is given back: the next turn takes it", () =>
    Effect.gen(function*() {
      const agent = yield* Agent.make(requested, undefined, Preset.breaker.options)
      for (let i = 0; i < 5; i++) expect(yield* Agent.ask(agent, `turn ${i}`)).toBe(`ok from ${sonnet}`)
      yield* TestClock.adjust("60 seconds")
      const trial = yield* Effect.forkChild(Agent.ask(agent, "the trial, interrupted"))
      yield* TestClock.adjust("1 second")
      expect((yield* seen(requested)).turns).toBe(6)
      expect((yield* (yield* Health.Health).snapshot)[0]!.breaker).toBe("trial")
      yield* Fiber.interrupt(trial)
      expect(yield* Agent.ask(agent, "the next turn takes the trial")).toBe(`ok from ${requested}`)
      expect((yield* seen(requested)).turns).toBe(7)
      expect(yield* (yield* Health.Health).snapshot).toEqual([])
    }).pipe(inBreaker({
      [requested]: [
        ...Array.from({ length: 5 }, () => Scripted.fail("Unknown")),
        Scripted.delay("20 seconds", Scripted.answer("too late")),
        Scripted.answer(`ok from ${requested}`)
      ]
    })))

  it.effect("the same when the trial's turn is read as a stream", () =>
    Effect.gen(function*() {
      const agent = yield* Agent.make(requested, undefined, Preset.breaker.options)
      for (let i = 0; i < 5; i++) expect(yield* Agent.ask(agent, `turn ${i}`)).toBe(`ok from ${sonnet}`)
      yield* TestClock.adjust("60 seconds")
      const trial = yield* Effect.forkChild(Stream.runCollect(agent.turn("the trial, interrupted")))
      yield* TestClock.adjust("1 second")
      expect((yield* seen(requested)).turns).toBe(6)
      expect((yield* (yield* Health.Health).snapshot)[0]!.breaker).toBe("trial")
      yield* Fiber.interrupt(trial)
      expect(yield* Agent.ask(agent, "the next turn takes the trial")).toBe(`ok from ${requested}`)
      expect((yield* seen(requested)).turns).toBe(7)
    }).pipe(inBreaker({
      [requested]: [
        ...Array.from({ length: 5 }, () => Scripted.fail("Unknown")),
        Scripted.delay("20 seconds", Scripted.answer("too late")),
        Scripted.answer(`ok from ${requested}`)
      ]
    })))

  it.effect("without the interruption, the trial is out: another turn skips the place", () =>
    Effect.gen(function*() {
      const agent = yield* Agent.make(requested, undefined, Preset.breaker.options)
      const other = yield* Agent.make(requested, undefined, Preset.breaker.options)
      for (let i = 0; i < 5; i++) yield* Agent.ask(agent, `turn ${i}`)
      yield* TestClock.adjust("60 seconds")
      const trial = yield* Effect.forkChild(Agent.ask(agent, "the trial, slow"))
      yield* TestClock.adjust("1 second")
      expect(yield* Agent.ask(other, "skips the place")).toBe(`ok from ${sonnet}`)
      expect((yield* seen(requested)).turns).toBe(6)
      yield* TestClock.adjust("20 seconds")
      expect(yield* Fiber.join(trial)).toBe("too late")
    }).pipe(inBreaker({
      [requested]: [
        ...Array.from({ length: 5 }, () => Scripted.fail("Unknown")),
        Scripted.delay("20 seconds", Scripted.answer("too late"))
      ]
    })))
})
