/**
 * Tools as a gateway passes them: dynamic tools of raw JSON Schema, not resolved and not
 * validated here (the client runs them), through a chain of config-file providers
 * (`AiPlace.fromProvider`). The schema reaches each place untouched, and the tool's parts come
 * back in order, also after a move from an Anthropic place to an OpenAI-compatible one.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option, Stream } from "effect"
import { LanguageModel, Tool, Toolkit } from "effect/ai"

import { AiPlace, FallbackAi } from "../src/index.js"
import { mocked, notices, withKeys } from "./world.js"

/** A client's tool as a gateway reads it: its name, description and JSON Schema, as sent. */
const schema = {
  type: "object",
  properties: { city: { type: "string", description: "A city" }, days: { type: "integer", minimum: 1 } },
  required: ["city"],
  additionalProperties: false
}
const toolkit = Toolkit.make(Tool.dynamic("get_weather", { description: "The weather in a city", parameters: schema }))

const places = ["claude/claude-x", "local/qwen3:8b"] as const

const chain = (url: string) =>
  FallbackAi.chain([...places], [
    AiPlace.fromProvider("claude", {
      kind: "anthropic-messages",
      baseUrl: url,
      key: { fromEnv: "ANTHROPIC_API_KEY" }
    }),
    AiPlace.fromProvider("local", { kind: "openai-compatible", baseUrl: `${url}/v1` })
  ], { options: { firstByte: Option.none() } }).pipe(Layer.provide(Layer.merge(NodeHttpClient.layerUndici, notices)))

const asGateway = { toolkit, disableToolCallResolution: true, toolCallValidation: "deferred" } as const

const toolParts = (parts: ReadonlyArray<{ readonly type: string }>) =>
  parts.filter((part) => part.type.startsWith("tool-")).map((part) => part.type).filter((type, i, all) =>
    type !== "tool-params-delta" || all[i - 1] !== "tool-params-delta"
  )

describe("a gateway's tools through a chain", () => {
  for (const move of [false, true]) {
    it.live(
      move
        ? "after a move from Anthropic to an OpenAI-compatible place: the schema sent as is, the call streamed back"
        : "at an Anthropic place: the schema sent as is, the call's parts streamed back in order",
      () =>
        Effect.gen(function*() {
          const input = { city: "Oslo", days: 2 }
          const mock = yield* mocked([
            ...(move ? [{ fault: "model-not-found" as const, route: "anthropic" as const }] : []),
            { fault: "answer", tool: { input } }
          ], { bodies: true })
          const parts = yield* LanguageModel.streamText({ prompt: "Weather in Oslo?", ...asGateway }).pipe(
            Stream.runCollect,
            Effect.provide(chain(mock.url)),
            withKeys
          )
          expect(toolParts(parts)).toEqual(["tool-params-start", "tool-params-delta", "tool-params-end", "tool-call"])
          const start = parts.find((part) => part.type === "tool-params-start")!
          const call = parts.find((part) => part.type === "tool-call")!
          expect(start.type === "tool-params-start" && start.name).toBe("get_weather")
          expect(call.type === "tool-call" && [call.id, call.name, call.params]).toEqual([
            start.type === "tool-params-start" && start.id,
            "get_weather",
            input
          ])
          const args = parts.flatMap((part) => part.type === "tool-params-delta" ? [part.delta] : []).join("")
          expect(JSON.parse(args)).toEqual(input)
          expect(parts.find((part) => part.type === "finish")).toMatchObject({ reason: "tool-calls" })
          expect(parts.some((part) => part.type === "tool-result")).toBe(false)

          const log = (yield* mock.requests).log
          expect(log.map((request) => request.route)).toEqual(move ? ["anthropic", "chat"] : ["anthropic"])
          const [claude, local] = log.map((request) => request.body as any)
          expect(claude.tools).toEqual([{
            name: "get_weather",
            description: "The weather in a city",
            input_schema: schema
          }])
          if (move) {
            expect(local.tools).toEqual([{
              type: "function",
              function: { name: "get_weather", description: "The weather in a city", parameters: schema }
            }])
          }
        })
    )
  }

  it.live("a whole answer: the call handed back unresolved, with its arguments as sent", () =>
    Effect.gen(function*() {
      const mock = yield* mocked([
        { fault: "model-not-found", route: "anthropic" },
        { fault: "answer", tool: { input: { town: "not in the schema" } } }
      ], { bodies: true })
      const response = yield* LanguageModel.generateText({ prompt: "Weather?", ...asGateway }).pipe(
        Effect.provide(chain(mock.url)),
        withKeys
      )
      expect(response.toolCalls.map((call) => [call.name, call.params])).toEqual([["get_weather", {
        town: "not in the schema"
      }]])
      expect(response.toolResults).toEqual([])
      expect(response.finishReason).toBe("tool-calls")
    }))
})
