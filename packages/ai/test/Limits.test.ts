import { describe, expect, it } from "@effect/vitest"
import { Notice } from "@fallback/core"
import { Duration, Effect, Fiber, Layer, Logger, Option, References, Stream } from "effect"
import { LanguageModel } from "effect/ai"
import { AiError } from "effect/ai"
import { TestClock } from "effect/testing"

import { AiPlace, FallbackAi } from "../src/index.js"

/**
 * An in-process model whose `generateText` is `answer` (it answers with its name once `answer`
 * succeeds); each call and each call interrupted is logged.
 */
const model = (name: string, log: Array<string>, answer: Effect.Effect<void>) =>
  AiPlace.make({
    cli: name,
    layer: () =>
      Layer.effect(
        LanguageModel.LanguageModel,
        LanguageModel.make({
          generateText: () =>
            Effect.suspend(() => {
              log.push(`call ${name}`)
              return answer.pipe(
                Effect.onInterrupt(() => Effect.sync(() => log.push(`interrupted ${name}`))),
                Effect.as(
                  [
                    { type: "text", text: `answered by ${name}` },
                    { type: "finish", reason: "stop", usage: { inputTokens: { total: 1 }, outputTokens: { total: 1 } } }
                  ] as const
                )
              )
            }),
          streamText: () => Stream.die("not streamed here")
        })
      )
  })

const heard: Array<Notice.Notice> = []
const notices = Layer.succeed(Notice.Notices, {
  publish: (notice) => Effect.sync(() => void heard.push(notice)),
  watch: Effect.succeed(Stream.empty)
})

const chain = (log: Array<string>, first: Effect.Effect<void>, firstByte: Duration.Input) =>
  FallbackAi.chain(["slow/m", "quick/m"], [model("slow", log, first), model("quick", log, Effect.void)], {
    options: { firstByte: Option.some(Duration.fromInputUnsafe(firstByte)) }
  }).pipe(Layer.orDie, Layer.provide(notices))

const finishOf = (response: LanguageModel.GenerateTextResponse<any>) =>
  response.content.find((part) => part.type === "finish")!.metadata.fallback

describe("FallbackAi: a whole reply within the first-byte limit (spec 000: first byte 30 s)", () => {
  it.effect("a model that does not answer by the first-byte limit is interrupted and the call moves on", () =>
    Effect.gen(function*() {
      heard.length = 0
      const log: Array<string> = []
      const call = yield* LanguageModel.generateText({ prompt: "hi" }).pipe(
        Effect.provide(chain(log, Effect.never, "10 seconds")),
        Effect.forkChild
      )
      yield* TestClock.adjust("9 seconds")
      expect(log).toEqual(["call slow"])
      yield* TestClock.adjust("1 second")
      const response = yield* Fiber.join(call)
      expect(response.text).toBe("answered by quick")
      expect(finishOf(response)).toEqual({ place: "quick/m", from: "slow/m", moved: true })
      expect(log).toEqual(["call slow", "interrupted slow", "call quick"])
      const moving = heard.find((notice) => notice._tag === "Moving") as Extract<Notice.Notice, { _tag: "Moving" }>
      expect(moving.failure._tag).toBe("Timeout")
    }))

  it.effect("a model that waits but answers before the limit answers, and nothing moves", () =>
    Effect.gen(function*() {
      const log: Array<string> = []
      const call = yield* LanguageModel.generateText({ prompt: "hi" }).pipe(
        Effect.provide(chain(log, Effect.sleep("5 seconds"), "10 seconds")),
        Effect.forkChild
      )
      yield* TestClock.adjust("5 seconds")
      const response = yield* Fiber.join(call)
      expect(response.text).toBe("answered by slow")
      expect(finishOf(response)).toEqual({ place: "slow/m", from: "slow/m", moved: false })
      expect(log).toEqual(["call slow"])
    }))

  it.effect("an interrupted call interrupts the model it waits for", () =>
    Effect.gen(function*() {
      const log: Array<string> = []
      const call = yield* LanguageModel.generateText({ prompt: "hi" }).pipe(
        Effect.provide(chain(log, Effect.never, "10 seconds")),
        Effect.forkChild
      )
      yield* TestClock.adjust("1 second")
      yield* Fiber.interrupt(call)
      expect(log).toEqual(["call slow", "interrupted slow"])
    }))

  it.live("on the live clock too: a model that never answers is cut at the limit and the next answers", () =>
    Effect.gen(function*() {
      const log: Array<string> = []
      const response = yield* LanguageModel.generateText({ prompt: "hi" }).pipe(
        Effect.provide(chain(log, Effect.never, "50 millis"))
      )
      expect(response.text).toBe("answered by quick")
      expect(log).toEqual(["call slow", "interrupted slow", "call quick"])
    }))

  it.live("on the live clock, a model that answers after a wait within the limit answers", () =>
    Effect.gen(function*() {
      const log: Array<string> = []
      const response = yield* LanguageModel.generateText({ prompt: "hi" }).pipe(
        Effect.provide(chain(log, Effect.sleep("5 millis"), "10 seconds"))
      )
      expect(response.text).toBe("answered by slow")
      expect(log).toEqual(["call slow"])
    }))

  it.effect("a model that fails moves the call, and no fiber reports the failure as its own (even at Debug)", () =>
    Effect.gen(function*() {
      const log: Array<string> = []
      const logged: Array<unknown> = []
      const refused = Effect.fail(
        AiError.make({
          module: "Slow",
          method: "generateText",
          reason: new AiError.UnknownError({ description: "no" })
        })
      )
      const response = yield* LanguageModel.generateText({ prompt: "hi" }).pipe(
        Effect.provide(chain(log, refused as unknown as Effect.Effect<void>, "10 seconds")),
        Effect.provide(Logger.layer([Logger.make(({ message }) => logged.push(message))])),
        Effect.provideService(References.MinimumLogLevel, "Debug")
      )
      expect(response.text).toBe("answered by quick")
      expect(logged.flat().map(String)).toEqual([
        "slow failed: no; another account or another place is what answers it; carrying on at quick/m"
      ])
    }))
})
