/**
 * What fallback's Anthropic model sends beyond the prompt's words: a prompt's `cache_control`
 * marks (a gateway passes its clients' on, and a warm cache depends on them), and a Claude OAuth
 * token as a bearer token with the beta Anthropic asks for.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { MockProvider } from "@fallback/testkit"
import { Effect, Layer, Redacted } from "effect"
import { LanguageModel, type Prompt } from "effect/ai"

import { AnthropicLanguageModel } from "../src/index.js"

const claude = (url: string, apiKey: string, headers?: Record<string, string>) =>
  AnthropicLanguageModel.layer({ model: "claude-x", baseUrl: url, apiKey: Redacted.make(apiKey), headers }).pipe(
    Layer.orDie,
    Layer.provide(NodeHttpClient.layerUndici)
  )

const ephemeral = { anthropic: { cacheControl: { type: "ephemeral" } } }

describe("Anthropic: cache_control from the prompt's options", () => {
  it.live("on system messages, text, tool calls and results, and a message's last block", () =>
    Effect.gen(function*() {
      const mock = yield* MockProvider.make({ bodies: true })
      const prompt: Prompt.RawInput = [
        { role: "system", content: "You are a gateway's client.", options: ephemeral },
        { role: "system", content: "Not cached." },
        { role: "user", content: [{ type: "text", text: "Weather?", options: ephemeral }] },
        {
          role: "assistant",
          content: [{
            type: "tool-call",
            id: "t1",
            name: "Weather",
            params: {},
            providerExecuted: false,
            options: ephemeral
          }]
        },
        {
          role: "tool",
          content: [{
            type: "tool-result",
            id: "t1",
            name: "Weather",
            isFailure: false,
            result: "grey",
            providerExecuted: false,
            options: ephemeral
          }]
        },
        { role: "user", content: [{ type: "text", text: "a" }, { type: "text", text: "b" }], options: ephemeral }
      ]
      yield* LanguageModel.generateText({ prompt }).pipe(Effect.provide(claude(mock.url, "sk-ant-api03-cache")))
      const sent = (yield* mock.requests).log[0]!.body as any
      const marked = { cache_control: { type: "ephemeral" } }
      expect(sent.system).toEqual([
        { type: "text", text: "You are a gateway's client.", ...marked },
        { type: "text", text: "Not cached." }
      ])
      expect(sent.messages[0].content).toEqual([{ type: "text", text: "Weather?", ...marked }])
      expect(sent.messages[1].content[0]).toMatchObject({ type: "tool_use", ...marked })
      expect(sent.messages[2].content).toEqual([
        { type: "tool_result", tool_use_id: "t1", content: "grey", is_error: false, ...marked },
        { type: "text", text: "a" },
        { type: "text", text: "b", ...marked }
      ])
    }))
})

describe("Anthropic: a caller's key", () => {
  it.live("an API key goes as x-api-key; a Claude OAuth token as a bearer token with the oauth beta", () =>
    Effect.gen(function*() {
      const mock = yield* MockProvider.make({ bodies: true })
      const token = "sk-ant-oat01-callertokencallertoken0001"
      yield* LanguageModel.generateText({ prompt: "hi" }).pipe(Effect.provide(claude(mock.url, "sk-ant-api03-plain")))
      yield* LanguageModel.generateText({ prompt: "hi" }).pipe(Effect.provide(claude(mock.url, token)))
      yield* LanguageModel.generateText({ prompt: "hi" }).pipe(
        Effect.provide(claude(mock.url, token, { "Anthropic-Beta": "interleaved-thinking-2025-05-14" }))
      )
      const [plain, oauth, withBeta] = (yield* mock.requests).log.map((request) => request.headers!)
      expect(plain["x-api-key"]).toBe("sk-ant-api03-plain")
      expect(plain.authorization).toBeUndefined()
      expect(plain["anthropic-beta"]).toBeUndefined()
      expect(oauth["x-api-key"]).toBeUndefined()
      expect(oauth.authorization).toBe(`Bearer ${token}`)
      expect(oauth["anthropic-beta"]).toBe("oauth-2025-04-20")
      expect(oauth["anthropic-version"]).toBe("2023-06-01")
      expect(withBeta["anthropic-beta"]).toBe("interleaved-thinking-2025-05-14,oauth-2025-04-20")
    }))
})
