/**
 * Thinking as fallback's own models read and write it: Anthropic's signed thinking and redacted
 * thinking kept on the reasoning parts (and marked with their family), sent back to Anthropic only
 * where Anthropic signed them, first in their message; OpenAI's reasoning marked as OpenAI's and
 * never sent back.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { MockProvider } from "@fallback/testkit"
import { Effect, Layer, Option, Redacted, Stream } from "effect"
import { LanguageModel, Prompt, type Response } from "effect/ai"

import { AnthropicLanguageModel, FallbackAi, Generation, OpenAiLanguageModel } from "../src/index.js"
import { served } from "./served.js"
import { anthropic, mocked, notices, openai, withKeys } from "./world.js"

const claude = (url: string) =>
  AnthropicLanguageModel.layer({ model: "claude-x", baseUrl: url, apiKey: Redacted.make("sk-ant-api03-think") }).pipe(
    Layer.orDie,
    Layer.provide(NodeHttpClient.layerUndici)
  )

const gpt = (url: string, api: "chat" | "responses") =>
  OpenAiLanguageModel.layer({ model: "gpt-x", api, baseUrl: `${url}/v1`, apiKey: Redacted.make("sk-think") }).pipe(
    Layer.orDie,
    Layer.provide(NodeHttpClient.layerUndici)
  )

const anthropicFamily = { fallback: { family: "anthropic" } }
const openAiFamily = { fallback: { family: "openai" } }

const reasoningParts = (parts: ReadonlyArray<Response.AnyPart>) =>
  parts.filter((part) => part.type.startsWith("reasoning")).map((part) => ({
    type: part.type,
    metadata: part.metadata
  }))

describe("Anthropic thinking: the signature kept, and sent back", () => {
  it.live("a streamed thinking block: the family on its start and end, the signature on its end; sent back signed", () =>
    Effect.gen(function*() {
      const mock = yield* mocked([{ fault: "think", route: "anthropic", thinking: "Weighing it up." }], {
        bodies: true,
        text: "The answer."
      })
      const parts = yield* LanguageModel.streamText({ prompt: "Think first." }).pipe(
        Stream.runCollect,
        Effect.provide(claude(mock.url))
      )
      const reasoning = reasoningParts(parts)
      expect(reasoning[0]).toEqual({ type: "reasoning-start", metadata: anthropicFamily })
      const end = reasoning.at(-1)!
      expect(end.type).toBe("reasoning-end")
      const signature = (end.metadata as any).anthropic.signature
      expect(typeof signature).toBe("string")
      expect(signature.length).toBeGreaterThan(0)
      expect(end.metadata).toEqual({ ...anthropicFamily, anthropic: { signature } })

      const answered = Prompt.fromResponseParts(parts)
      yield* LanguageModel.generateText({
        prompt: Prompt.concat(Prompt.concat(Prompt.make("Think first."), answered), Prompt.make("And then?"))
      }).pipe(Effect.provide(claude(mock.url)))
      const sent = (yield* mock.requests).log[1]!.body as any
      expect(sent.messages[1]).toEqual({
        role: "assistant",
        content: [
          { type: "thinking", thinking: "Weighing it up.", signature },
          { type: "text", text: "The answer." }
        ]
      })
    }))

  it.live("a whole thinking block: one reasoning part with its signature and family", () =>
    Effect.gen(function*() {
      const mock = yield* mocked([{ fault: "think", route: "anthropic", thinking: "Weighing it up." }])
      const response = yield* LanguageModel.generateText({ prompt: "Think first." }).pipe(
        Effect.provide(claude(mock.url))
      )
      const reasoning = response.content.find((part) => part.type === "reasoning")!
      expect(reasoning.text).toBe("Weighing it up.")
      expect((reasoning.metadata as any).fallback).toEqual(anthropicFamily.fallback)
      expect(typeof (reasoning.metadata as any).anthropic.signature).toBe("string")
    }))

  it.live("redacted thinking, whole and streamed: its data kept as redactedData, sent back as redacted_thinking", () =>
    Effect.gen(function*() {
      const message = { id: "msg_1", model: "claude-x", usage: { input_tokens: 3, output_tokens: 2 } }
      const server = yield* served((body) =>
        body.stream === true
          ? {
            events: [
              ["message_start", { type: "message_start", message }],
              ["content_block_start", {
                type: "content_block_start",
                index: 0,
                content_block: { type: "redacted_thinking", data: "ENCRYPTED" }
              }],
              ["content_block_stop", { type: "content_block_stop", index: 0 }],
              ["content_block_start", { type: "content_block_start", index: 1, content_block: { type: "text" } }],
              ["content_block_delta", {
                type: "content_block_delta",
                index: 1,
                delta: { type: "text_delta", text: "hi" }
              }],
              ["content_block_stop", { type: "content_block_stop", index: 1 }],
              ["message_delta", { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: {} }],
              ["message_stop", { type: "message_stop" }]
            ]
          }
          : {
            json: {
              ...message,
              content: [{ type: "redacted_thinking", data: "ENCRYPTED" }, { type: "text", text: "hi" }],
              stop_reason: "end_turn"
            }
          }
      )
      const model = claude(server.url)
      const whole = yield* LanguageModel.generateText({ prompt: "hello" }).pipe(Effect.provide(model))
      const redacted = { ...anthropicFamily, anthropic: { redactedData: "ENCRYPTED" } }
      expect(whole.content.find((part) => part.type === "reasoning")).toMatchObject({ text: "", metadata: redacted })
      const parts = yield* LanguageModel.streamText({ prompt: "hello" }).pipe(Stream.runCollect, Effect.provide(model))
      expect(reasoningParts(parts)).toEqual([
        { type: "reasoning-start", metadata: redacted },
        { type: "reasoning-end", metadata: redacted }
      ])
      yield* LanguageModel.generateText({
        prompt: Prompt.concat(Prompt.concat(Prompt.make("hello"), Prompt.fromResponseParts(parts)), Prompt.make("more"))
      }).pipe(Effect.provide(model))
      expect(server.bodies[2].messages[1].content).toEqual([
        { type: "redacted_thinking", data: "ENCRYPTED" },
        { type: "text", text: "hi" }
      ])
    }))

  it.live("only reasoning Anthropic signed goes back, first in its message; the rest is left out", () =>
    Effect.gen(function*() {
      const mock = yield* MockProvider.make({ bodies: true })
      const reasoning = (text: string, options: Prompt.ProviderOptions) => ({
        type: "reasoning" as const,
        text,
        options
      })
      const prompt: Prompt.RawInput = [
        { role: "user", content: "q" },
        {
          role: "assistant",
          content: [
            { type: "text", text: "said first" },
            reasoning("signed", { anthropic: { signature: "sig-1" }, ...anthropicFamily }),
            reasoning("unmarked but signed", { anthropic: { signature: "sig-2" } }),
            reasoning("written by fallback for a client", { anthropic: { signature: "fallback:abc" } }),
            reasoning("another family's", { anthropic: { signature: "sig-3" }, ...openAiFamily }),
            reasoning("never signed", {}),
            reasoning("", { anthropic: { redactedData: "R" } })
          ]
        },
        { role: "user", content: "next" }
      ]
      yield* LanguageModel.generateText({ prompt }).pipe(Effect.provide(claude(mock.url)))
      const sent = (yield* mock.requests).log[0]!.body as any
      expect(sent.messages[1].content).toEqual([
        { type: "thinking", thinking: "signed", signature: "sig-1" },
        { type: "thinking", thinking: "unmarked but signed", signature: "sig-2" },
        { type: "redacted_thinking", data: "R" },
        { type: "text", text: "said first" }
      ])
    }))
})

describe("thinking through a chain", () => {
  it.live("a chain's streamed answer keeps the signature; the thinking budget reaches the Anthropic place", () =>
    Effect.gen(function*() {
      const mock = yield* mocked([{ fault: "think", route: "anthropic", thinking: "Weighing it up." }], {
        bodies: true
      })
      const parts = yield* LanguageModel.streamText({ prompt: "Think first." }).pipe(
        Stream.runCollect,
        Generation.with({ thinking: { budgetTokens: 2048 } }),
        Effect.provide(
          FallbackAi.chain(["anthropic/claude-x", "openai/gpt-x"], [anthropic(mock.url), openai(mock.url)], {
            options: { firstByte: Option.none() }
          }).pipe(Layer.provide(Layer.merge(NodeHttpClient.layerUndici, notices)))
        ),
        withKeys
      )
      const reasoning = reasoningParts(parts)
      expect(reasoning[0]).toEqual({ type: "reasoning-start", metadata: anthropicFamily })
      expect((reasoning.at(-1)!.metadata as any).anthropic.signature).toEqual(expect.any(String))
      const sent = (yield* mock.requests).log[0]!.body as any
      expect(sent.thinking).toEqual({ type: "enabled", budget_tokens: 2048 })
    }))
})

describe("OpenAI reasoning: marked as OpenAI's, never sent back", () => {
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    [undefined, {
      id: "c1",
      model: "qwen3:8b",
      choices: [{ index: 0, delta, finish_reason: finish }]
    }] as const

  it.live("Chat Completions: reasoning_content, whole and streamed, as reasoning parts of the family openai", () =>
    Effect.gen(function*() {
      const server = yield* served((body) =>
        body.stream === true
          ? {
            events: [
              chunk({ role: "assistant", reasoning_content: "Hmm, " }),
              chunk({ reasoning_content: "yes." }),
              chunk({ content: "Yes." }, "stop"),
              [undefined, "[DONE]"]
            ]
          }
          : {
            json: {
              id: "c1",
              model: "qwen3:8b",
              choices: [{
                index: 0,
                message: { role: "assistant", reasoning_content: "Hmm, yes.", content: "Yes." },
                finish_reason: "stop"
              }]
            }
          }
      )
      const model = gpt(server.url, "chat")
      const whole = yield* LanguageModel.generateText({ prompt: "q" }).pipe(Effect.provide(model))
      expect(whole.content.find((part) => part.type === "reasoning")).toMatchObject({
        text: "Hmm, yes.",
        metadata: openAiFamily
      })
      const parts = yield* LanguageModel.streamText({ prompt: "q" }).pipe(Stream.runCollect, Effect.provide(model))
      expect(parts.map((part) => part.type).filter((type) => type !== "response-metadata")).toEqual([
        "reasoning-start",
        "reasoning-delta",
        "reasoning-delta",
        "reasoning-end",
        "text-start",
        "text-delta",
        "text-end",
        "finish"
      ])
      expect(reasoningParts(parts).filter((part) => part.type !== "reasoning-delta").map((part) => part.metadata))
        .toEqual([openAiFamily, openAiFamily])
      yield* LanguageModel.generateText({
        prompt: Prompt.concat(Prompt.concat(Prompt.make("q"), Prompt.fromResponseParts(parts)), Prompt.make("more"))
      }).pipe(Effect.provide(model))
      expect(JSON.stringify(server.bodies[2])).not.toContain("Hmm")
      expect(server.bodies[2].messages[1]).toEqual({ role: "assistant", content: "Yes." })
    }))

  it.live("Responses: reasoning summaries, whole and streamed, marked openai; never sent back", () =>
    Effect.gen(function*() {
      const response = { id: "r1", model: "gpt-x", usage: { input_tokens: 2, output_tokens: 3 } }
      const server = yield* served((body) =>
        body.stream === true
          ? {
            events: [
              [undefined, { type: "response.created", response }],
              [undefined, { type: "response.output_item.added", item: { type: "reasoning", id: "rs_1" } }],
              [undefined, {
                type: "response.reasoning_summary_text.delta",
                item_id: "rs_1",
                summary_index: 0,
                delta: "Thought."
              }],
              [undefined, { type: "response.reasoning_summary_text.done", item_id: "rs_1", summary_index: 0 }],
              [undefined, { type: "response.output_item.done", item: { type: "reasoning", id: "rs_1" } }],
              [undefined, { type: "response.output_text.delta", item_id: "m1", delta: "Done." }],
              [undefined, { type: "response.output_item.done", item: { type: "message", id: "m1" } }],
              [undefined, { type: "response.completed", response: { ...response, status: "completed" } }]
            ]
          }
          : {
            json: {
              ...response,
              status: "completed",
              output: [
                { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "Thought." }] },
                { type: "message", content: [{ type: "output_text", text: "Done." }] }
              ]
            }
          }
      )
      const model = gpt(server.url, "responses")
      const whole = yield* LanguageModel.generateText({ prompt: "q" }).pipe(Effect.provide(model))
      expect(whole.content.find((part) => part.type === "reasoning")).toMatchObject({
        text: "Thought.",
        metadata: openAiFamily
      })
      const parts = yield* LanguageModel.streamText({ prompt: "q" }).pipe(Stream.runCollect, Effect.provide(model))
      expect(reasoningParts(parts)).toEqual([
        { type: "reasoning-start", metadata: openAiFamily },
        { type: "reasoning-delta", metadata: {} },
        { type: "reasoning-end", metadata: openAiFamily }
      ])
      yield* LanguageModel.generateText({
        prompt: Prompt.concat(Prompt.concat(Prompt.make("q"), Prompt.fromResponseParts(parts)), Prompt.make("more"))
      }).pipe(Effect.provide(model))
      expect(JSON.stringify(server.bodies[2])).not.toContain("Thought.")
    }))
})
