/**
 * fallback's own models hand their parts to a chain as effect/ai's schema would decode them,
 * without decoding them again per call: every kind of part a wire makes reads the same both ways.
 */
import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { Response, Toolkit } from "effect/ai"

import { decodedPart } from "../src/internal/model/direct.js"

const made = [
  { type: "response-metadata", id: "msg_1", modelId: "claude-x", timestamp: "2026-01-02T03:04:05.000Z" },
  { type: "response-metadata", id: undefined, modelId: undefined, timestamp: undefined },
  { type: "text-start", id: "0" },
  { type: "text-delta", id: "0", delta: "hi" },
  { type: "text-end", id: "0" },
  { type: "reasoning-start", id: "1", metadata: { fallback: { family: "anthropic" } } },
  { type: "reasoning-delta", id: "1", delta: "so" },
  { type: "reasoning-end", id: "1", metadata: { fallback: { family: "anthropic" }, anthropic: { signature: "s" } } },
  { type: "tool-params-start", id: "t", name: "Read" },
  { type: "tool-params-delta", id: "t", delta: "{\"a\":" },
  { type: "tool-params-end", id: "t" },
  { type: "tool-call", id: "t", name: "Read", params: { a: 1 } },
  {
    type: "finish",
    reason: "stop",
    usage: {
      inputTokens: { uncached: undefined, total: 3, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: 1, text: undefined, reasoning: undefined }
    }
  }
]

const whole = [
  { type: "text", text: "hi" },
  { type: "reasoning", text: "so", metadata: { anthropic: { signature: "s" } } },
  { type: "tool-call", id: "t", name: "Read", params: { a: 1 } }
]

const UndeclaredToolCall = Response.ToolCallPart("", Schema.Unknown).mapFields((fields) => ({
  ...fields,
  name: Schema.String
}))

describe("a wire's parts taken as they are", () => {
  it("read as effect/ai's schema decodes them, streamed", () => {
    const decode = Schema.decodeUnknownSync(Schema.Union([Response.StreamPart(Toolkit.empty), UndeclaredToolCall]))
    for (const part of made) expect(decodedPart(part)).toStrictEqual(decode(part))
  })

  it("read as effect/ai's schema decodes them, whole", () => {
    const decode = Schema.decodeUnknownSync(Schema.Union([Response.Part(Toolkit.empty), UndeclaredToolCall]))
    for (const part of [...whole, made[0]!, made.at(-1)!]) expect(decodedPart(part)).toStrictEqual(decode(part))
  })
})
