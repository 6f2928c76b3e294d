/**
 * Generation options (`Generation.with`) as fallback's own models send them, in each vendor's
 * words, and as a chain carries them to every place a call reaches: read on the caller's fiber
 * when the call is made, never when the model was built.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { MockProvider } from "@fallback/testkit"
import { Effect, Layer, Option, Redacted, Schema, Stream } from "effect"
import { LanguageModel } from "effect/ai"

import { AnthropicLanguageModel, FallbackAi, Generation, OpenAiLanguageModel } from "../src/index.js"
import { anthropic, mocked, notices, openai, withKeys } from "./world.js"

type Wire = "anthropic" | "responses" | "chat"

const modelOf = (wire: Wire, url: string) =>
  (wire === "anthropic"
    ? AnthropicLanguageModel.layer({
      model: "claude-x",
      baseUrl: url,
      apiKey: Redacted.make("sk-ant-api03-gen"),
      maxTokens: 1000
    })
    : OpenAiLanguageModel.layer({ model: "gpt-x", api: wire, baseUrl: `${url}/v1`, apiKey: Redacted.make("sk-gen") }))
    .pipe(Layer.orDie, Layer.provide(NodeHttpClient.layerUndici))

const sentBodies = (mock: MockProvider.Service) =>
  Effect.map(mock.requests, (counts) => counts.log.map((request) => request.body as Record<string, any>))

const asked: Generation.Options = { maxTokens: 300, temperature: 0.2, topP: 0.9, stop: ["END", "STOP"] }

describe("Generation: each wire sends the generation options in its vendor's words", () => {
  it.live("unset, nothing is sent but Anthropic's length cap (the model's own)", () =>
    Effect.gen(function*() {
      const mock = yield* MockProvider.make({ bodies: true })
      for (const wire of ["anthropic", "responses", "chat"] as const) {
        yield* LanguageModel.generateText({ prompt: "hello" }).pipe(Effect.provide(modelOf(wire, mock.url)))
      }
      const [claude, responses, chat] = yield* sentBodies(mock)
      expect(claude!.max_tokens).toBe(1000)
      for (const body of [claude!, responses!, chat!]) {
        for (const field of ["temperature", "top_p", "stop", "stop_sequences", "thinking", "reasoning"]) {
          expect(body).not.toHaveProperty(field)
        }
      }
      expect(chat).not.toHaveProperty("max_tokens")
      expect(responses).not.toHaveProperty("max_output_tokens")
    }))

  it.live("Anthropic: max_tokens, temperature, top_p and stop_sequences", () =>
    Effect.gen(function*() {
      const mock = yield* MockProvider.make({ bodies: true })
      yield* LanguageModel.generateText({ prompt: "hello" }).pipe(
        Generation.with(asked),
        Effect.provide(modelOf("anthropic", mock.url))
      )
      const [body] = yield* sentBodies(mock)
      expect(body).toMatchObject({ max_tokens: 300, temperature: 0.2, top_p: 0.9, stop_sequences: ["END", "STOP"] })
    }))

  it.live("Anthropic thinking: the budget sent, max_tokens raised above it, temperature left out", () =>
    Effect.gen(function*() {
      const mock = yield* MockProvider.make({ bodies: true })
      const model = modelOf("anthropic", mock.url)
      yield* LanguageModel.generateText({ prompt: "think" }).pipe(
        Generation.with({ ...asked, maxTokens: 2000, thinking: { budgetTokens: 4000 } }),
        Effect.provide(model)
      )
      yield* LanguageModel.generateText({ prompt: "think" }).pipe(
        Generation.with({ maxTokens: 8000, topP: 0.5, thinking: { budgetTokens: 4000 } }),
        Effect.provide(model)
      )
      const [raised, kept] = yield* sentBodies(mock)
      expect(raised!.thinking).toEqual({ type: "enabled", budget_tokens: 4000 })
      expect(raised!.max_tokens).toBe(6000)
      expect(raised).not.toHaveProperty("temperature")
      expect(raised!.top_p).toBeUndefined()
      expect(kept!.max_tokens).toBe(8000)
      expect(kept).not.toHaveProperty("top_p")
    }))

  it.live("Anthropic: no thinking asked with an object's forced tool, nor with a prefill", () =>
    Effect.gen(function*() {
      const mock = yield* mocked([{ fault: "answer", route: "anthropic", json: { city: "Oslo" } }], { bodies: true })
      const thinking = Generation.with({ thinking: { budgetTokens: 4000 } })
      yield* LanguageModel.generateObject({
        prompt: "Where?",
        schema: Schema.Struct({ city: Schema.String })
      }).pipe(thinking, Effect.provide(modelOf("anthropic", mock.url)))
      yield* mock.script([])
      yield* LanguageModel.generateText({
        prompt: [{ role: "user", content: "Count" }, { role: "assistant", content: "1, 2," }]
      }).pipe(thinking, Effect.provide(modelOf("anthropic", mock.url)))
      for (const body of yield* sentBodies(mock)) {
        expect(body).not.toHaveProperty("thinking")
        expect(body.max_tokens).toBe(1000)
      }
    }))

  it.live("OpenAI Chat: max_tokens, temperature, top_p, stop, and the thinking budget as reasoning_effort", () =>
    Effect.gen(function*() {
      const mock = yield* MockProvider.make({ bodies: true })
      const model = modelOf("chat", mock.url)
      for (const budgetTokens of [1024, 8000, 32000]) {
        yield* LanguageModel.generateText({ prompt: "hello" }).pipe(
          Generation.with({ ...asked, thinking: { budgetTokens } }),
          Effect.provide(model)
        )
      }
      const bodies = yield* sentBodies(mock)
      expect(bodies[0]).toMatchObject({ max_tokens: 300, temperature: 0.2, top_p: 0.9, stop: ["END", "STOP"] })
      expect(bodies.map((body) => body.reasoning_effort)).toEqual(["low", "medium", "high"])
    }))

  it.live("OpenAI Responses: max_output_tokens, temperature, top_p and reasoning.effort (no stop sequences)", () =>
    Effect.gen(function*() {
      const mock = yield* MockProvider.make({ bodies: true })
      yield* LanguageModel.streamText({ prompt: "hello" }).pipe(
        Stream.runDrain,
        Generation.with({ ...asked, thinking: { budgetTokens: 20_000 } }),
        Effect.provide(modelOf("responses", mock.url))
      )
      const [body] = yield* sentBodies(mock)
      expect(body).toMatchObject({
        max_output_tokens: 300,
        temperature: 0.2,
        top_p: 0.9,
        reasoning: { effort: "high" }
      })
      expect(body).not.toHaveProperty("stop")
    }))
})

describe("Generation through a chain", () => {
  const chain = (url: string) =>
    FallbackAi.chain(["anthropic/claude-x", "openai/gpt-x"], [anthropic(url), openai(url)], {
      options: { firstByte: Option.none() }
    }).pipe(Layer.provide(Layer.merge(NodeHttpClient.layerUndici, notices)))

  it.live("a call's options reach the place it moves to, streamed and whole; each call its own", () =>
    Effect.gen(function*() {
      const mock = yield* mocked([{ fault: "model-not-found", route: "anthropic" }], { bodies: true })
      yield* Effect.gen(function*() {
        yield* LanguageModel.streamText({ prompt: "first" }).pipe(
          Stream.runDrain,
          Generation.with({ maxTokens: 321, temperature: 0.3 })
        )
        yield* LanguageModel.generateText({ prompt: "second" }).pipe(
          Generation.with({ maxTokens: 654, thinking: { budgetTokens: 2000 } })
        )
        yield* LanguageModel.generateText({ prompt: "third" })
      }).pipe(Effect.provide(chain(mock.url)), withKeys)
      const log = (yield* mock.requests).log
      expect(log.map((request) => `${request.route} ${request.fault}`)).toEqual([
        "anthropic model-not-found",
        "responses answer",
        "responses answer",
        "responses answer"
      ])
      const [claude, first, second, third] = log.map((request) => request.body as Record<string, any>)
      expect(claude).toMatchObject({ max_tokens: 321, temperature: 0.3 })
      expect(first).toMatchObject({ max_output_tokens: 321, temperature: 0.3 })
      expect(second).toMatchObject({ max_output_tokens: 654, reasoning: { effort: "low" } })
      expect(second).not.toHaveProperty("temperature")
      expect(third).not.toHaveProperty("max_output_tokens")
      expect(third).not.toHaveProperty("temperature")
    }))
})
