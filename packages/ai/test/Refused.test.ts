/**
 * A model behind @effect/ai whose content filter stopped the answer (`finishReason:
 * "content-filter"` in a 200) refused the prompt: Refused, taken once, not an empty answer (issue 22).
 */
import { describe, expect, it } from "@effect/vitest"
import { Agent, Backend, ConfigFile, Health, Notice, Steps } from "@fallback/core"
import { Effect, Layer, Option, Stream } from "effect"
import { LanguageModel } from "effect/ai"

import { AiPlace } from "../src/index.js"

const usage = { inputTokens: { total: 1 }, outputTokens: { total: 0 } }

/** A model that stops every answer by its content filter, counting the calls. */
const filtering = (calls: { count: number }) =>
  Layer.effect(
    LanguageModel.LanguageModel,
    LanguageModel.make({
      generateText: () =>
        Effect.sync(() => {
          calls.count += 1
          return [{ type: "finish", reason: "content-filter", usage }]
        }),
      streamText: () =>
        Stream.suspend(() => {
          calls.count += 1
          return Stream.fromIterable([{ type: "finish", reason: "content-filter", usage }] as const)
        })
    })
  )

const answering = Layer.effect(
  LanguageModel.LanguageModel,
  LanguageModel.make({
    generateText: () => Effect.succeed([{ type: "text", text: "other" }, { type: "finish", reason: "stop", usage }]),
    streamText: () =>
      Stream.fromIterable(
        [
          { type: "text-start", id: "1" },
          { type: "text-delta", id: "1", delta: "other" },
          { type: "text-end", id: "1" },
          { type: "finish", reason: "stop", usage }
        ] as const
      )
  })
)

const silent = Layer.succeed(Notice.Notices, { publish: () => Effect.void, watch: Effect.succeed(Stream.empty) })

describe("a content filter behind @effect/ai", () => {
  for (const way of ["reply", "turn"] as const) {
    it.effect(`stops the turn as Refused, once, with the provider's reason (by ${way})`, () =>
      Effect.gen(function*() {
        const calls = { count: 0 }
        const filtered = yield* AiPlace.make({ cli: "model", models: [{ name: "m" }], layer: () => filtering(calls) })
        const other = yield* AiPlace.make({ cli: "other", models: [{ name: "o" }], layer: () => answering })
        const failure = yield* Effect.gen(function*() {
          yield* Effect.orDie(Effect.flatMap(Steps.Steps, (steps) => steps.points("model/m", "other/o")))
          const agent = yield* Agent.make("model/m", undefined, { firstByte: Option.none() })
          return yield* Effect.flip(
            way === "reply" ? Agent.ask(agent, "hello") : Stream.runDrain(agent.turn("hello"))
          )
        }).pipe(Effect.provide(Layer.mergeAll(
          Backend.Backends.layer([filtered, other]),
          Layer.provideMerge(Steps.Steps.layer, ConfigFile.Store.layerMemory()),
          Health.Health.layerMemory(),
          silent
        )))
        expect(failure._tag).toBe("Refused")
        expect(failure.message).toBe(
          "model refused the prompt by its content policy: the provider's content filter stopped the answer (finish reason: content-filter)"
        )
        expect(calls.count).toBe(1)
      }))
  }
})
