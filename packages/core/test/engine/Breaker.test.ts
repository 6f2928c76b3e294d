/**
 * Conformance with the breaker system (reference 003), every number of its page walked on the
 * TestClock: the ordered list from `LLM_FALLBACK_MODELS` (checked at start: a typo or a repeat
 * fails it; unset or empty is no failover), 5 failures in a row park a model for 60 s, then one
 * trial request; its success clears the model, its failure parks it again at once; a single
 * success clears the count; 30 s to open a stream or yield; failover only before the stream.
 */
import { describe, expect, it } from "@effect/vitest"
import { Scripted } from "@fallback/testkit"
import { ConfigProvider, Duration, Effect, Exit, Fiber, Stream } from "effect"
import { TestClock } from "effect/testing"
import { Agent, Health, Place, Preset } from "../../src/index.js"
import { Heard, world } from "./world.js"

const requested = "claude/claude-opus-5"
const [sonnet, gpt] = ["claude/claude-sonnet-5", "codex/gpt-5"]
const capabilities = {
  claude: { models: [{ name: "claude-opus-5" }, { name: "claude-sonnet-5" }] },
  codex: { models: [{ name: "gpt-5" }] }
}

const opus = Place.Place.make({ cli: "claude", model: "claude-opus-5" })
const listed = (list: string) =>
  Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnv({ env: { LLM_FALLBACK_MODELS: list } }))

/** Starting the breaker preset with a list: what start fails with. */
const start = (list: string) =>
  Effect.flip(Effect.provide(Effect.void, Preset.breakerSteps(opus))).pipe(
    Effect.provide(world({ script: { places: {}, capabilities } })),
    listed(list)
  )

const breaker =
  (places: Scripted.Script["places"], list = "claude-sonnet-5,gpt-5") => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    effect.pipe(
      Effect.provide(Preset.breakerSteps(opus)),
      Effect.provide(world({ script: { places, capabilities }, breaker: Preset.breaker.breaker })),
      listed(list)
    )

const agent = Agent.make(requested, undefined, Preset.breaker.options)
const seen = (place: string) => Effect.map(Scripted.Scripted, (scripted) => scripted.seen(place))
const ask = (prompt: string) => Effect.flatMap(agent, (agent) => Agent.ask(agent, prompt))

describe("breaker preset (003)", () => {
  it.effect("the models of LLM_FALLBACK_MODELS are tried in order after the requested one", () =>
    Effect.gen(function*() {
      expect(yield* ask("hi")).toBe(`ok from ${gpt}`)
      expect([(yield* seen(requested)).turns, (yield* seen(sonnet)).turns, (yield* seen(gpt)).turns]).toEqual([1, 1, 1])
      expect((yield* Scripted.Scripted).asked()).toEqual([requested, sonnet, gpt])
    }).pipe(breaker({ [requested]: [Scripted.fail("Unknown")], [sonnet]: [Scripted.fail("RateLimited")] })))

  it.effect("unset or empty disables failover", () =>
    Effect.gen(function*() {
      expect((yield* Effect.flip(ask("hi")))._tag).toBe("Unknown")
      expect((yield* Scripted.Scripted).asked()).toEqual([requested])
    }).pipe(breaker({ [requested]: [Scripted.fail("Unknown")] }, "")))

  it.effect("a typo fails start, naming the nearest models", () =>
    Effect.gen(function*() {
      expect((yield* start("claude-sonet-5")).message).toBe(
        "LLM_FALLBACK_MODELS names \"claude-sonet-5\", which no configured backend serves (did you mean claude-sonnet-5 or claude-opus-5?)"
      )
    }))

  it.effect("a model listed twice fails start", () =>
    Effect.gen(function*() {
      expect((yield* start("gpt-5,gpt-5"))._tag).toBe("RepeatedModel")
    }))

  it.effect("5 failures in a row park a model for 60 s; then exactly one trial; its failure parks it again at once; its success clears it", () =>
    Effect.gen(function*() {
      for (let i = 0; i < 5; i++) expect(yield* ask(`turn ${i}`)).toBe(`ok from ${sonnet}`)
      expect((yield* seen(requested)).turns).toBe(5)
      yield* ask("parked")
      expect((yield* seen(requested)).turns).toBe(5)
      yield* TestClock.adjust("59999 millis")
      yield* ask("still parked")
      expect((yield* seen(requested)).turns).toBe(5)
      yield* TestClock.adjust("1 millis")
      expect(yield* ask("the trial, which fails")).toBe(`ok from ${sonnet}`)
      expect((yield* seen(requested)).at).toEqual([0, 0, 0, 0, 0, 60_000])
      yield* ask("parked again at once")
      yield* TestClock.adjust("59999 millis")
      yield* ask("still parked")
      expect((yield* seen(requested)).turns).toBe(6)
      yield* TestClock.adjust("1 millis")
      expect(yield* ask("the trial, which answers")).toBe(`ok from ${requested}`)
      expect(yield* Effect.flatMap(Health.Health, (health) => health.snapshot)).toEqual([])
      expect(yield* ask("back in rotation")).toBe(`ok from ${requested}`)
      expect((yield* seen(requested)).at).toEqual([0, 0, 0, 0, 0, 60_000, 120_000, 120_000])
      expect((yield* Heard).lines().filter((line) => line.includes("skipping"))).toEqual([
        "claude/claude-opus-5 is parked after failing too often in a row for another 1m; skipping it",
        "claude/claude-opus-5 is parked after failing too often in a row for another 1ms; skipping it",
        "claude/claude-opus-5 is parked after failing too often in a row for another 1m; skipping it",
        "claude/claude-opus-5 is parked after failing too often in a row for another 1ms; skipping it"
      ])
    }).pipe(breaker({
      [requested]: [
        ...Array.from({ length: 6 }, () => Scripted.fail("Unknown")),
        Scripted.answer(`ok from ${requested}`)
      ]
    })))

  it.effect("a single success clears the count: a model that fails now and then is never tripped", () =>
    Effect.gen(function*() {
      for (let i = 0; i < 9; i++) yield* ask(`turn ${i}`)
      expect((yield* seen(requested)).turns).toBe(9)
      expect((yield* seen(sonnet)).turns).toBe(8)
    }).pipe(breaker({
      [requested]: [
        ...Array.from({ length: 4 }, () => Scripted.fail("Unknown")),
        Scripted.answer("ok"),
        ...Array.from({ length: 4 }, () => Scripted.fail("Unknown"))
      ]
    })))

  it.effect("a model that has not opened a stream within 30 s yields to the next", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.forkChild(ask("hi"))
      yield* TestClock.adjust("29999 millis")
      expect((yield* seen(sonnet)).turns).toBe(0)
      yield* TestClock.adjust("1 millis")
      expect(yield* Fiber.join(fiber)).toBe(`ok from ${sonnet}`)
      expect((yield* seen(sonnet)).at).toEqual([30_000])
    }).pipe(breaker({ [requested]: [Scripted.hang] })))

  it.effect("a stream that opens within 30 s is waited for", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.forkChild(ask("hi"))
      yield* TestClock.adjust("29 seconds")
      expect(yield* Fiber.join(fiber)).toBe("slow but there")
      expect((yield* seen(sonnet)).turns).toBe(0)
    }).pipe(breaker({ [requested]: [Scripted.delay("29 seconds", Scripted.answer("slow but there"))] })))

  it.effect("only failures before the response starts fail over: a failure partway through a stream surfaces as a run error", () =>
    Effect.gen(function*() {
      // issue 25: a streamed turn; a whole reply has handed nothing over and moves on (WholeReply.test.ts)
      const exit = yield* Effect.exit(Effect.flatMap(agent, (agent) => Stream.runDrain(agent.turn("hi"))))
      expect(Exit.isFailure(exit)).toBe(true)
      expect((yield* seen(sonnet)).turns).toBe(0)
    }).pipe(breaker({ [requested]: [Scripted.die(3, "ConnectionLost")] })))

  it("its numbers", () => {
    expect([Preset.breaker.breaker.failures, Duration.toSeconds(Preset.breaker.breaker.park)]).toEqual([5, 60])
    expect(Preset.breaker.options.firstByte.pipe((o) => o._tag === "Some" ? Duration.toSeconds(o.value) : 0)).toBe(30)
    expect(Preset.breaker.options.moved).toBe("returns")
  })
})
