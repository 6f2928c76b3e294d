/**
 * Issue 25, bounded, not patient: a first byte's and a stall's limit per kind of place (an HTTP
 * API, an agent CLI), each a setting; a silent route is not asked again at the same place; a stall
 * ends the attempt within its limit and leaves the place sound. And a context too long moves to
 * a larger window.
 */
import { describe, expect, it } from "@effect/vitest"
import { Scripted } from "@fallback/testkit"
import { Duration, Effect, Exit, Fiber, Layer, Option, Stream } from "effect"
import { TestClock } from "effect/testing"
import { Agent, Backend } from "../../src/index.js"
import type { Setup } from "./world.js"
import { world } from "./world.js"

const [api, cli, next] = ["local/a", "claude/c", "codex/b"]

/** A world whose `local` backend is an HTTP API (the scripted backend, declared `kind: "http"`). */
const withApi = (setup: Setup) =>
  Layer.provideMerge(
    Layer.effect(
      Backend.Backends,
      Effect.map(Backend.Backends, (scripted) => {
        const all = scripted.all.map((backend) =>
          backend.cli === "local" ? { ...backend, kind: "http" as const } : backend
        )
        return Backend.Backends.of({
          get: (name) => Option.fromNullishOr(all.find((backend) => backend.cli === name)),
          all
        })
      })
    ),
    world(setup)
  )

const moved = (agent: Agent.Agent, whole: boolean) =>
  whole ? Agent.ask(agent, "hi") : Effect.map(Stream.runCollect(agent.turn("hi")), Backend.textOf)

describe("bounded, not patient (issue 25)", () => {
  for (const whole of [false, true]) {
    const how = whole ? ", answered whole" : ", streamed"
    it.effect(`an HTTP API silent past its 20 s first byte is not asked again there: the turn moves at 20 s${how}`, () =>
      Effect.gen(function*() {
        const agent = yield* Agent.make(api)
        const fiber = yield* Effect.forkChild(moved(agent, whole))
        yield* TestClock.adjust("19999 millis")
        expect(fiber.pollUnsafe()).toBeUndefined()
        yield* TestClock.adjust("1 millis")
        expect(yield* Fiber.join(fiber)).toBe(`ok from ${next}`)
        const scripted = yield* Scripted.Scripted
        // its step asks for 2 more goes: a silent route is not one to ask again
        expect(scripted.seen(api).at).toEqual([0])
        expect(scripted.seen(next).at).toEqual([20_000])
      }).pipe(Effect.provide(withApi({
        script: { places: { [api]: [Scripted.hang] } },
        chain: [api, next],
        retrying: { [api]: [2, "constant"] }
      }))))

    it.effect(`an agent CLI keeps the 30 s first byte${how}`, () =>
      Effect.gen(function*() {
        const agent = yield* Agent.make(cli)
        const fiber = yield* Effect.forkChild(moved(agent, whole))
        yield* TestClock.adjust("29999 millis")
        expect(fiber.pollUnsafe()).toBeUndefined()
        yield* TestClock.adjust("1 millis")
        expect(yield* Fiber.join(fiber)).toBe(`ok from ${next}`)
        expect((yield* Scripted.Scripted).seen(cli).at).toEqual([0])
      }).pipe(Effect.provide(withApi({
        script: { places: { [cli]: [Scripted.hang] } },
        chain: [cli, next],
        retrying: { [cli]: [2, "constant"] }
      }))))

    it.effect(`the limits are settings: an HTTP first byte of 5 s moves at 5 s${how}`, () =>
      Effect.gen(function*() {
        const agent = yield* Agent.make(api, undefined, {
          limits: { http: { firstByte: Option.some(Duration.seconds(5)) }, cli: {} }
        })
        const fiber = yield* Effect.forkChild(moved(agent, whole))
        yield* TestClock.adjust("5 seconds")
        expect(yield* Fiber.join(fiber)).toBe(`ok from ${next}`)
        expect((yield* Scripted.Scripted).seen(next).at).toEqual([5000])
      }).pipe(Effect.provide(withApi({ script: { places: { [api]: [Scripted.hang] } }, chain: [api, next] }))))
  }

  it.effect("an HTTP API's stream quiet for its 30 s stall ends the attempt then: a whole reply moves", () =>
    Effect.gen(function*() {
      const agent = yield* Agent.make(api)
      const fiber = yield* Effect.forkChild(Agent.ask(agent, "hi"))
      yield* TestClock.adjust("29999 millis")
      expect(fiber.pollUnsafe()).toBeUndefined()
      yield* TestClock.adjust("1 millis")
      expect(yield* Fiber.join(fiber)).toBe(`ok from ${next}`)
      expect((yield* Scripted.Scripted).seen(next).at).toEqual([30_000])
    }).pipe(Effect.provide(withApi({ script: { places: { [api]: [Scripted.stall(1)] } }, chain: [api, next] }))))

  it.effect("a stall ends a streamed turn within the limit and leaves the place sound: the next turn there answers", () =>
    Effect.gen(function*() {
      const agent = yield* Agent.make(api)
      const fiber = yield* Effect.forkChild(Effect.exit(Stream.runDrain(agent.turn("hi"))))
      yield* TestClock.adjust("30 seconds")
      const exit = yield* Fiber.join(fiber)
      expect(Exit.isFailure(exit) && exit.cause.reasons[0]).toMatchObject({
        error: { _tag: "Cut", failure: { _tag: "Unresponsive" } }
      })
      // no time passes: the place answers at once, in the same session
      expect(Backend.textOf(yield* Stream.runCollect(agent.turn("again")))).toBe("fine")
      const seen = (yield* Scripted.Scripted).seen(api)
      expect([seen.turns, seen.opens, seen.closes]).toEqual([2, 1, 0])
    }).pipe(Effect.provide(withApi({
      script: { places: { [api]: [Scripted.stall(1), Scripted.answer("fine")] } },
      chain: [api]
    }))))

  it.effect("thinking is a sign of life at a CLI: pieces 90 s apart under its 2 min stall land", () =>
    Effect.gen(function*() {
      const agent = yield* Agent.make(cli)
      const fiber = yield* Effect.forkChild(Agent.ask(agent, "hi"))
      yield* TestClock.adjust("5 minutes")
      expect(yield* Fiber.join(fiber)).toBe("done")
    }).pipe(Effect.provide(withApi({
      script: {
        places: {
          [cli]: [
            Scripted.timed([
              ["1 second", Backend.Event.Thinking({ text: "a" })],
              ["90 seconds", Backend.Event.Thinking({ text: "b" })],
              ["90 seconds", Backend.Event.Text({ text: "done" })]
            ])
          ]
        }
      },
      chain: [cli, next]
    }))))
})

describe("context too long moves to a larger window (issue 25)", () => {
  const [small, same, large] = ["local/small", "local/same", "local/large"]
  const windows = {
    local: {
      models: [
        { name: "small", contextWindow: 1000 },
        { name: "same", contextWindow: 1000 },
        { name: "large", contextWindow: 100_000 }
      ]
    }
  }

  for (const whole of [false, true]) {
    const how = whole ? ", answered whole" : ", streamed"
    it.effect(`taken once where it happened, the turn skips a window as small and answers at a larger one${how}`, () =>
      Effect.gen(function*() {
        const agent = yield* Agent.make(small)
        expect(yield* moved(agent, whole)).toBe(`ok from ${large}`)
        const scripted = yield* Scripted.Scripted
        expect([scripted.seen(small).turns, scripted.seen(same).turns, scripted.seen(large).turns]).toEqual([1, 0, 1])
      }).pipe(Effect.provide(world({
        script: { places: { [small]: [Scripted.fail("ContextTooLong")] }, capabilities: windows },
        chain: [small, same, large]
      }))))
  }

  it.effect("with no larger window in the chain it fails cleanly, asking nobody else", () =>
    Effect.gen(function*() {
      const agent = yield* Agent.make(small)
      expect((yield* Effect.flip(Agent.ask(agent, "hi")))._tag).toBe("ContextTooLong")
      expect((yield* Scripted.Scripted).requests()).toBe(1)
    }).pipe(Effect.provide(world({
      script: { places: { [small]: [Scripted.fail("ContextTooLong")] }, capabilities: windows },
      chain: [small, same]
    }))))
})
