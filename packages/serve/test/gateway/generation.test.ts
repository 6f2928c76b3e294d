import Anthropic from "@anthropic-ai/sdk"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import OpenAI from "openai"

import { served } from "./world.js"

const anthropic = (url: string, apiKey = "sk-ant-CALLERsecret0015") =>
  new Anthropic({ baseURL: url, apiKey, maxRetries: 0 })
const openai = (url: string) => new OpenAI({ baseURL: `${url}/v1`, apiKey: "sk-CALLERsecretsecret0016", maxRetries: 0 })

/** The bodies the mock received, by route, in order. */
const bodies = (mock: { readonly requests: Effect.Effect<{ readonly log: ReadonlyArray<any> }> }) =>
  Effect.map(mock.requests, (counts) => counts.log.map((request) => [request.route, request.body]))

describe("Gateway: a request's generation options reach the place that answers it", () => {
  it.live("Anthropic Messages: max_tokens, temperature, stop_sequences, thinking at the Anthropic place", () =>
    Effect.gen(function*() {
      const { mock, url } = yield* served({ passThrough: false }, [])
      const messages = [{ role: "user" as const, content: "hi" }]
      yield* Effect.promise(() =>
        anthropic(url).messages.create({
          model: "anthropic/claude-x",
          max_tokens: 123,
          temperature: 0.5,
          stop_sequences: ["STOP"],
          messages
        } as Anthropic.MessageCreateParamsNonStreaming)
      )
      yield* Effect.promise(() =>
        anthropic(url).messages.stream({
          model: "anthropic/claude-x",
          max_tokens: 9000,
          thinking: { type: "enabled", budget_tokens: 2048 },
          messages
        }).finalMessage()
      )
      const [whole, thinking] = (yield* bodies(mock)).map(([, body]) => body)
      expect(whole).toMatchObject({ max_tokens: 123, temperature: 0.5, stop_sequences: ["STOP"] })
      expect(thinking).toMatchObject({ max_tokens: 9000, thinking: { type: "enabled", budget_tokens: 2048 } })
    }))

  it.live("Anthropic Messages moved to the OpenAI place: max_tokens, temperature, stop, reasoning_effort", () =>
    Effect.gen(function*() {
      const { mock, url } = yield* served()
      const client = anthropic(url, "key-fault-rate-limit-30")
      yield* Effect.promise(() =>
        client.messages.create({
          model: "anthropic/claude-x",
          max_tokens: 123,
          temperature: 0.5,
          stop_sequences: ["STOP"],
          messages: [{ role: "user", content: "hi" }]
        } as Anthropic.MessageCreateParamsNonStreaming)
      )
      yield* Effect.promise(() =>
        client.messages.stream({
          model: "anthropic/claude-x",
          max_tokens: 9000,
          thinking: { type: "enabled", budget_tokens: 2048 },
          messages: [{ role: "user", content: "another" }]
        }).finalMessage()
      )
      const chat = (yield* bodies(mock)).filter(([route]) => route === "chat").map(([, body]) => body)
      expect(chat).toHaveLength(2)
      expect(chat[0]).toMatchObject({ max_tokens: 123, temperature: 0.5, stop: ["STOP"] })
      expect(chat[1]).toMatchObject({ max_tokens: 9000, reasoning_effort: "low" })
    }))

  it.live("Chat Completions: max_tokens, temperature, stop, reasoning_effort, at its place and moved to Anthropic", () =>
    Effect.gen(function*() {
      const { mock, url } = yield* served({ passThrough: false }, ["openai/gpt-fault-overloaded", "anthropic/claude-x"])
      const messages = [{ role: "user" as const, content: "hi" }]
      yield* Effect.promise(() =>
        openai(url).chat.completions.create({
          model: "openai/gpt-x",
          max_tokens: 77,
          temperature: 0.2,
          stop: ["END"],
          reasoning_effort: "medium",
          messages
        })
      )
      yield* Effect.promise(() =>
        openai(url).chat.completions.create({
          model: "openai/gpt-fault-overloaded",
          max_tokens: 77,
          temperature: 0.2,
          stop: ["END"],
          messages
        })
      )
      yield* Effect.promise(() =>
        openai(url).chat.completions.create({
          model: "openai/gpt-fault-overloaded",
          max_tokens: 77,
          reasoning_effort: "medium",
          messages: [{ role: "user", content: "another" }]
        })
      )
      const sent = yield* bodies(mock)
      expect(sent[0]).toEqual([
        "chat",
        expect.objectContaining({ max_tokens: 77, temperature: 0.2, stop: ["END"], reasoning_effort: "medium" })
      ])
      const moved = sent.filter(([route]) => route === "anthropic").map(([, body]) => body)
      expect(moved).toHaveLength(2)
      expect(moved[0]).toMatchObject({ max_tokens: 77, temperature: 0.2, stop_sequences: ["END"] })
      // thinking's budget is medium's; a cap at or under it is raised above it
      expect(moved[1]).toMatchObject({ thinking: { type: "enabled", budget_tokens: 10000 }, max_tokens: 10077 })
    }))

  it.live("Responses: max_output_tokens, temperature, reasoning.effort, at its place and moved to Anthropic", () =>
    Effect.gen(function*() {
      const { mock, url } = yield* served({ passThrough: false }, ["openai/gpt-fault-overloaded", "anthropic/claude-x"])
      yield* Effect.promise(() =>
        openai(url).responses.create({
          model: "openai/gpt-x",
          input: "hi",
          max_output_tokens: 55,
          temperature: 0.3,
          reasoning: { effort: "low" }
        })
      )
      yield* Effect.promise(() =>
        openai(url).responses.create({
          model: "openai/gpt-fault-overloaded",
          input: "hi",
          max_output_tokens: 55,
          temperature: 0.3
        })
      )
      const sent = yield* bodies(mock)
      // the OpenAI place of the tests speaks Chat Completions upstream
      expect(sent[0]).toEqual([
        "chat",
        expect.objectContaining({ max_tokens: 55, temperature: 0.3, reasoning_effort: "low" })
      ])
      const moved = sent.filter(([route]) => route === "anthropic").map(([, body]) => body)
      expect(moved).toEqual([expect.objectContaining({ max_tokens: 55, temperature: 0.3 })])
    }))
})
