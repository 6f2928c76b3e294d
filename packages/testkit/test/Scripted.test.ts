import { describe, expect, it } from "@effect/vitest"
import * as Backend from "@fallback/core/Backend"
import * as Place from "@fallback/core/Place"
import * as Settings from "@fallback/core/Settings"
import { Effect, Exit, Fiber, Option, Stream } from "effect"
import { TestClock } from "effect/testing"
import * as Scripted from "../src/Scripted.js"

const place = Place.Place.make({ cli: "claude", account: "work", model: "opus" })
const prompt: Backend.Prompt = { text: "hi", history: [] }

const turns = (outcomes: ReadonlyArray<Scripted.Outcome>, count: number) =>
  Effect.gen(function*() {
    const backend = Option.getOrThrow((yield* Backend.Backends).get("claude"))
    const session = yield* backend.open(place, Option.none(), Settings.plain, {})
    const exits = []
    for (let i = 0; i < count; i++) {
      const tags = Stream.runCollect(session.turn(prompt)).pipe(Effect.map((events) => events.map((e) => e._tag)))
      exits.push(yield* Effect.exit(tags))
    }
    return exits
  }).pipe(Effect.provide(Scripted.Scripted.layer({ places: { "claude@work/opus": outcomes } })))

describe("Scripted", () => {
  it.effect("plays each place's outcomes in order, repeating the last, and counts what it was asked", () =>
    Effect.gen(function*() {
      const exits = yield* turns([Scripted.fail("RateLimited"), Scripted.answer("hello")], 3)
      expect(exits.map((exit) => exit._tag)).toEqual(["Failure", "Success", "Success"])
      expect(exits[1]).toEqual(Exit.succeed(["SessionStarted", "Text", "Result"]))
    }))

  it.effect("counts opens, closes, turns and prompts per place", () =>
    Effect.gen(function*() {
      const scripted = yield* Scripted.Scripted
      const backend = Option.getOrThrow((yield* Backend.Backends).get("claude"))
      yield* Effect.scoped(Effect.gen(function*() {
        const session = yield* backend.open(place, Option.none(), Settings.plain, { resume: "abc" })
        expect(session.id).toBe("abc")
        yield* Stream.runDrain(session.turn(prompt))
      }))
      expect(scripted.seen("claude@work/opus")).toMatchObject({
        opens: 1,
        closes: 1,
        turns: 1,
        resumed: ["abc"],
        prompts: [prompt]
      })
      expect(scripted.requests()).toBe(1)
    }).pipe(Effect.provide(Scripted.Scripted.layer({ places: {}, clis: ["claude"] }))))

  it.effect("dies after N pieces of content, delays on the clock, and hangs", () =>
    Effect.gen(function*() {
      const [died] = yield* turns([Scripted.die(2, "ConnectionLost")], 1)
      expect(Exit.isFailure(died!)).toBe(true)
      const fiber = yield* Effect.forkChild(turns([Scripted.delay("5 seconds", Scripted.answer("late"))], 1))
      yield* TestClock.adjust("4999 millis")
      expect(fiber.pollUnsafe()).toBeUndefined()
      yield* TestClock.adjust("1 millis")
      expect((yield* Fiber.join(fiber))[0]!._tag).toBe("Success")
      const hung = yield* Effect.forkChild(turns([Scripted.hang], 1))
      yield* TestClock.adjust("1 hour")
      expect(hung.pollUnsafe()).toBeUndefined()
    }))

  it.effect("each build of its layer counts on its own, the same layer value provided twice included", () =>
    Effect.gen(function*() {
      const layer = Scripted.Scripted.layer({ places: {}, clis: ["claude"] })
      const asked = Effect.gen(function*() {
        const backend = Option.getOrThrow((yield* Backend.Backends).get("claude"))
        yield* Effect.scoped(Effect.flatMap(
          backend.open(place, Option.none(), Settings.plain, {}),
          (session) => Stream.runDrain(session.turn(prompt))
        ))
        return (yield* Scripted.Scripted).requests()
      })
      expect(yield* Effect.provide(asked, layer)).toBe(1)
      expect(yield* Effect.provide(asked, layer)).toBe(1)
    }))

  it.effect("its health checks follow their script", () =>
    Effect.gen(function*() {
      const backend = Option.getOrThrow((yield* Backend.Backends).get("claude"))
      const results = yield* Effect.all([0, 1, 2].map(() => Effect.exit(backend.check!(place))))
      expect(results.map((exit) => exit._tag)).toEqual(["Failure", "Success", "Success"])
      expect((yield* Scripted.Scripted).seen("claude@work/opus").checks).toBe(3)
    }).pipe(
      Effect.provide(
        Scripted.Scripted.layer({ places: {}, clis: ["claude"], checks: { "claude@work/opus": [false, true] } })
      )
    ))
})
