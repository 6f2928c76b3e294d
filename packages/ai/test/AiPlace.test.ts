import { describe, expect, it } from "@effect/vitest"
import { Agent, Backend, ConfigFile, Health, Notice, Steps } from "@fallback/core"
import { Scripted } from "@fallback/testkit"
import { Cause, Effect, Layer, Option, Redacted, Stream } from "effect"
import type { Prompt } from "effect/ai"
import { AiError, LanguageModel } from "effect/ai"

import { AiPlace, FallbackAi } from "../src/index.js"

/** An in-process model that answers with the number of messages it was given, keeping each prompt. */
const counting = (prompts: Array<Prompt.Prompt>) =>
  Layer.effect(
    LanguageModel.LanguageModel,
    LanguageModel.make({
      generateText: (options) =>
        Effect.sync(() => {
          prompts.push(options.prompt)
          return [
            { type: "text", text: `${options.prompt.content.length} messages` },
            { type: "finish", reason: "stop", usage: { inputTokens: { total: 1 }, outputTokens: { total: 1 } } }
          ]
        }),
      streamText: (options) =>
        Stream.fromIterable(
          [
            { type: "text-start", id: "1" },
            { type: "text-delta", id: "1", delta: `${options.prompt.content.length} ` },
            { type: "text-delta", id: "1", delta: "messages" },
            { type: "text-end", id: "1" },
            { type: "finish", reason: "stop", usage: { inputTokens: { total: 1 }, outputTokens: { total: 1 } } }
          ] as const
        )
    })
  )

const silent = Layer.succeed(Notice.Notices, { publish: () => Effect.void, watch: Effect.succeed(Stream.empty) })

const world = (backends: Layer.Layer<Backend.Backends>, chain: ReadonlyArray<string> = []) =>
  Layer.provideMerge(
    Layer.effectDiscard(Effect.orDie(Effect.gen(function*() {
      const steps = yield* Steps.Steps
      for (let i = 1; i < chain.length; i++) yield* steps.points(chain[i - 1]!, chain[i]!)
    }))),
    Layer.mergeAll(
      backends,
      Layer.provideMerge(Steps.Steps.layer, ConfigFile.Store.layerMemory()),
      Health.Health.layerMemory(),
      silent
    )
  )

describe("AiPlace: a LanguageModel layer as a place of a plain agent", () => {
  it.effect("an agent's text turns reach the model as messages, the conversation carried as turns", () =>
    Effect.gen(function*() {
      const prompts: Array<Prompt.Prompt> = []
      const backend = yield* AiPlace.make({
        cli: "model",
        models: [{ name: "m", contextWindow: 8000 }],
        layer: () => counting(prompts)
      })
      expect(backend.capabilities.models).toEqual([{ name: "m", contextWindow: 8000 }])
      const answers = yield* Effect.gen(function*() {
        const agent = yield* Agent.make("model/m", undefined, { firstByte: Option.none() })
        return [yield* Agent.ask(agent, "one"), yield* Agent.ask(agent, "two")]
      }).pipe(Effect.provide(world(Backend.Backends.layer([backend]))))
      expect(answers).toEqual(["1 messages", "3 messages"])
      expect(prompts[1]!.content.map((message) => message.role)).toEqual(["user", "assistant", "user"])
    }))

  it.effect("a key variable that is not set refuses the place's credentials, naming the variable only", () =>
    Effect.gen(function*() {
      const backend = yield* AiPlace.make({
        cli: "model",
        key: "NOT_SET_ANYWHERE_KEY",
        layer: ({ key }) =>
          Layer.effect(LanguageModel.LanguageModel, Effect.flatMap(key, () => Effect.die("unreached")))
      })
      const failure = yield* Effect.gen(function*() {
        const agent = yield* Agent.make("model/m", undefined, { fallback: false })
        return yield* Agent.ask(agent, "one")
      }).pipe(Effect.provide(world(Backend.Backends.layer([backend]))), Effect.flip)
      expect(failure._tag).toBe("AuthRefused")
      if (failure._tag === "AuthRefused") {
        expect(failure.said).toBe("no key: the variable NOT_SET_ANYWHERE_KEY is not set")
      }
    }))

  it.effect("a key the layer read is held: a model that echoes it has it masked in the failure", () =>
    Effect.gen(function*() {
      const value = "plainvalue-without-shape-9921"
      process.env["AI_PLACE_CANARY_KEY"] = value
      const backend = yield* AiPlace.make({
        cli: "model",
        key: "AI_PLACE_CANARY_KEY",
        layer: ({ key }) =>
          Layer.effect(
            LanguageModel.LanguageModel,
            Effect.flatMap(key, (read) => {
              const refused = AiError.make({
                module: "Canary",
                method: "generateText",
                reason: new AiError.UnknownError({ description: `bad request for key ${Redacted.value(read)}` })
              })
              return LanguageModel.make({
                generateText: () => Effect.fail(refused),
                streamText: () => Stream.fail(refused)
              })
            })
          )
      })
      const exit = yield* Effect.gen(function*() {
        const agent = yield* Agent.make("model/m", undefined, { fallback: false, firstByte: Option.none() })
        return yield* Agent.ask(agent, "one")
      }).pipe(Effect.provide(world(Backend.Backends.layer([backend]))), Effect.exit)
      delete process.env["AI_PLACE_CANARY_KEY"]
      const told = JSON.stringify(exit) + String(Cause.pretty(exit._tag === "Failure" ? exit.cause : Cause.empty))
      expect(told).not.toContain(value)
    }))
})

describe("FallbackAi: an agent CLI in the chain", () => {
  it.effect("a CLI place gets the call as plain text and its answer comes back as the response", () =>
    Effect.gen(function*() {
      const prompts: Array<Prompt.Prompt> = []
      const scripted = Scripted.Scripted.layer({
        places: { "claude/a": [Scripted.answer("the CLI answered")], "model/down": [Scripted.fail("ModelNotFound")] }
      })
      const both = Layer.effect(
        Backend.Backends,
        Effect.gen(function*() {
          const cli = yield* Backend.Backends
          const model = yield* AiPlace.make({ cli: "model", layer: () => counting(prompts) })
          return Backend.Backends.of({
            get: (name) => name === "model" ? Option.some(model) : cli.get(name),
            all: [...cli.all, model]
          })
        })
      ).pipe(Layer.provide(scripted))
      const [text, seen] = yield* Effect.gen(function*() {
        const response = yield* LanguageModel.generateText({
          prompt: [{ role: "system", content: "Be brief." }, { role: "user", content: "hello" }]
        })
        return [response, (yield* Scripted.Scripted).seen("claude/a")] as const
      }).pipe(
        Effect.provide(
          FallbackAi.layer("model/down").pipe(Layer.provideMerge(world(both, ["model/down", "claude/a"])))
        ),
        Effect.provide(scripted)
      )
      expect(text.text).toBe("the CLI answered")
      expect(text.finishReason).toBe("stop")
      expect(seen.prompts.map((prompt) => [prompt.text, prompt.history.length])).toEqual([[
        "System: Be brief.\n\nUser: hello",
        0
      ]])
      expect(prompts).toEqual([])
    }))
})

describe("FallbackAi: the call a chain answers reaches only the places of that call", () => {
  const prompt = [
    { role: "system" as const, content: "Be brief." },
    { role: "user" as const, content: "first" },
    { role: "assistant" as const, content: "noted" },
    { role: "user" as const, content: "second" }
  ]

  it.effect("after a chain's call, a plain agent at an effect/ai place on the same fiber is asked its own turn", () =>
    Effect.gen(function*() {
      const prompts: Array<Prompt.Prompt> = []
      const backend = yield* AiPlace.make({ cli: "model", layer: () => counting(prompts) })
      const [chained, plain] = yield* Effect.gen(function*() {
        const response = yield* LanguageModel.generateText({ prompt }).pipe(
          Effect.provide(FallbackAi.layer("model/m", { options: { firstByte: Option.none() } }))
        )
        const agent = yield* Agent.make("model/m", undefined, { firstByte: Option.none() })
        return [response.text, yield* Agent.ask(agent, "plain")] as const
      }).pipe(Effect.provide(world(Backend.Backends.layer([backend]))))
      expect([chained, plain]).toEqual(["4 messages", "1 messages"])
      expect(prompts[1]!.content.map((message) => message.role)).toEqual(["user"])
    }))

  it.effect("a chain inside a chain: when the inner one gives up, the outer one's next place gets the outer call", () =>
    Effect.gen(function*() {
      const prompts: Array<Prompt.Prompt> = []
      const down = yield* AiPlace.make({
        cli: "down",
        layer: () =>
          Layer.effect(
            LanguageModel.LanguageModel,
            LanguageModel.make({
              generateText: () =>
                Effect.fail(
                  AiError.make({
                    module: "Down",
                    method: "generateText",
                    reason: new AiError.UnknownError({ description: "down" })
                  })
                ),
              streamText: () => Stream.die("not streamed here")
            })
          )
      })
      const inner = FallbackAi.layer("down/inner", { options: { firstByte: Option.none(), fallback: false } }).pipe(
        Layer.provide(world(Backend.Backends.layer([down])))
      )
      const nested = yield* AiPlace.make({ cli: "nested", layer: () => Layer.orDie(inner) })
      const last = yield* AiPlace.make({ cli: "model", layer: () => counting(prompts) })
      const response = yield* LanguageModel.generateText({ prompt }).pipe(
        Effect.provide(
          FallbackAi.layer("nested/m", { options: { firstByte: Option.none() } }).pipe(
            Layer.provide(world(Backend.Backends.layer([nested, last]), ["nested/m", "model/m"]))
          )
        )
      )
      expect(response.text).toBe("4 messages")
      expect(prompts.map((p) => p.content.length)).toEqual([4])
    }))
})
