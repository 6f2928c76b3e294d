import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import type { Response as AiResponse } from "effect/ai"
import { readFileSync } from "node:fs"
import { join } from "node:path"

import { anthropic } from "../../src/internal/wire/anthropic.js"
import * as P from "./anthropicParts.js"

const fixtures = join(import.meta.dirname, "../fixtures/anthropic")
const fixture = (name: string) => readFileSync(join(fixtures, name), "utf8")

/** What the writer writes of `parts`, closed by `end()`, as events. */
const written = (parts: ReadonlyArray<AiResponse.StreamPart<any>>) => {
  const writer = anthropic.stream(P.answered, P.call)
  return P.events(P.sse([...parts.flatMap((part) => writer.part(part)), ...writer.end()]))
}

/** Events without what the gateway makes its own (ids, model, usage counts). */
const shape = (events: ReadonlyArray<{ event: string; data: any }>) =>
  events.map(({ data, event }) =>
    event === "message_start"
      ? { event, role: data.message.role, content: data.message.content }
      : event === "message_delta"
      ? { event, delta: data.delta }
      : { event, data }
  )

/** The content blocks the events make, checking on the way the order strict clients need. */
const wellOrdered = (events: ReadonlyArray<{ event: string; data: any }>) => {
  expect(events[0]!.event).toBe("message_start")
  expect(events.at(-1)!.event).toBe("message_stop")
  expect(events.at(-2)!.event).toBe("message_delta")
  expect(events.filter((e) => e.event === "message_start" || e.event === "message_delta")).toHaveLength(2)
  const blocks: Array<any> = []
  let open: number | undefined
  for (const { data, event } of events.slice(1, -2)) {
    if (event === "content_block_start") {
      expect(open, "a block starts while another is open").toBeUndefined()
      expect(data.index).toBe(blocks.length)
      open = data.index
      blocks.push({ ...data.content_block, json: "" })
    } else if (event === "content_block_delta") {
      expect(data.index).toBe(open)
      const block = blocks[data.index]
      const delta = data.delta
      if (delta.type === "text_delta") block.text += delta.text
      else if (delta.type === "thinking_delta") block.thinking += delta.thinking
      else if (delta.type === "signature_delta") block.signature = delta.signature
      else if (delta.type === "input_json_delta") block.json += delta.partial_json
      expect(block.type).toBe(
        { text_delta: "text", thinking_delta: "thinking", signature_delta: "thinking", input_json_delta: "tool_use" }[
          delta.type as string
        ]
      )
    } else {
      expect(event).toBe("content_block_stop")
      expect(data.index).toBe(open)
      open = undefined
    }
  }
  expect(open, "a block is left open").toBeUndefined()
  return blocks
}

describe("anthropic.stream", () => {
  it("writes the documented tool-use stream for the parts an Anthropic place streams", () => {
    const ours = written([
      P.metadata(),
      ...P.textThenCall({ id: "0", pieces: ["I'll check", " the weather."] }, {
        id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6",
        name: "get_weather",
        pieces: ["{\"location\":", " \"San Francisco, CA\", \"unit\": \"celsius\"}"]
      }),
      P.finish("tool-calls", { input: 472, output: 89 })
    ])
    expect(shape(ours)).toEqual(shape(P.events(fixture("stream-tool.sse"))))
    expect(ours[0]!.data.message).toMatchObject({ id: P.answered.id, model: P.answered.model })
    expect(ours.at(-2)!.data.usage).toEqual({ input_tokens: 472, output_tokens: 89 })
  })

  it("writes the documented thinking stream: thinking deltas, then the signature, before the block stops", () => {
    const ours = written([
      P.reasoningStart("r"),
      P.reasoningDelta("r", "Split 27 * 453 into 27 * 400 + 27 * 53."),
      P.reasoningDelta("r", "\n10800 + 1431 = 12231."),
      P.reasoningEnd("r", P.signed("EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds")),
      P.textDelta("t", "27 * 453 = 12,231"),
      P.textEnd("t"),
      P.finish("stop", { output: 100 })
    ])
    expect(shape(ours)).toEqual(shape(P.events(fixture("stream-thinking.sse"))))
  })

  it("writes another family's reasoning with a fallback: signature, and redacted thinking as its data", () => {
    const blocks = wellOrdered(written([
      P.reasoningStart("o", { fallback: { family: "openai" } }),
      P.reasoningDelta("o", "a summary"),
      P.reasoningEnd("o"),
      P.reasoningStart("x", { anthropic: { redactedData: "EmwKAhgB" } }),
      P.reasoningEnd("x"),
      P.reasoningStart("u"),
      P.reasoningEnd("u"),
      P.finish("stop")
    ]))
    expect(blocks).toEqual([
      { type: "thinking", thinking: "a summary", signature: "fallback:openai:", json: "" },
      { type: "redacted_thinking", data: "EmwKAhgB", json: "" },
      { type: "thinking", thinking: "", signature: "fallback:unknown:", json: "" }
    ])
  })

  it("writes a tool call that came whole as one JSON delta, and says tool_use when tools were called", () => {
    const events = written([P.textDelta("t", "ok"), P.toolCall("c1", "Bash", { command: "ls" }), P.finish("stop")])
    expect(wellOrdered(events)).toEqual([
      { type: "text", text: "ok", json: "" },
      { type: "tool_use", id: "c1", name: "Bash", input: {}, json: "{\"command\":\"ls\"}" }
    ])
    expect(events.at(-2)!.data.delta.stop_reason).toBe("tool_use")
  })

  it("keeps a tool's JSON in one block when text comes between its pieces", () => {
    const blocks = wellOrdered(written([
      P.paramsStart("c1", "Read"),
      P.paramsDelta("c1", "{\"file_path\":"),
      P.textDelta("t", "reading"),
      P.paramsDelta("c1", "\"/a\"}"),
      P.textDelta("t", " now"),
      P.paramsEnd("c1"),
      P.toolCall("c1", "Read", { file_path: "/a" }),
      P.finish("tool-calls")
    ]))
    expect(blocks).toEqual([
      { type: "tool_use", id: "c1", name: "Read", input: {}, json: "{\"file_path\":\"/a\"}" },
      { type: "text", text: "reading now", json: "" }
    ])
  })

  it("stops the open block and writes Anthropic's error event when the answer fails after the commit point", () => {
    const writer = anthropic.stream(P.answered, P.call)
    const frames = [
      ...writer.part(P.textDelta("t", "half")),
      ...writer.failed({ status: 529, kind: "overloaded", message: "every place is overloaded" }),
      ...writer.end()
    ]
    expect(P.events(P.sse(frames)).map((e) => e.event)).toEqual([
      "message_start",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "error"
    ])
    expect(JSON.parse(frames.at(-1)!.data)).toEqual({
      type: "error",
      error: { type: "overloaded_error", message: "every place is overloaded" }
    })
  })

  const Script = Schema.Struct({
    blocks: Schema.Array(Schema.Struct({
      kind: Schema.Literals(["text", "reasoning", "tool", "whole-tool"]),
      chunks: Schema.Array(Schema.String).check(Schema.isMaxLength(4)),
      signed: Schema.Boolean
    })).check(Schema.isMaxLength(6)),
    order: Schema.Array(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 100 }))),
    reason: Schema.Literals(["stop", "length", "tool-calls", "content-filter", "unknown"])
  })

  it.prop(
    "any parts the engine can give, in any interleaving of their blocks, make a well-ordered stream with their content",
    { script: Script },
    ({ script }) => {
      const sequences = script.blocks.map((block, i): Array<AiResponse.StreamPart<any>> => {
        const id = `b${i}`
        switch (block.kind) {
          case "text":
            return [P.textStart(id), ...block.chunks.map((c) => P.textDelta(id, c)), P.textEnd(id)]
          case "reasoning":
            return [
              P.reasoningStart(id, block.signed ? {} : { fallback: { family: "openai" } }),
              ...block.chunks.map((c) => P.reasoningDelta(id, c)),
              P.reasoningEnd(id, block.signed ? P.signed(`sig-${i}`) : {})
            ]
          case "tool": {
            const json = JSON.stringify({ chunks: block.chunks })
            const cut = Math.floor(json.length / 2)
            return [
              P.paramsStart(id, "t"),
              P.paramsDelta(id, json.slice(0, cut)),
              P.paramsDelta(id, json.slice(cut)),
              P.paramsEnd(id),
              P.toolCall(id, "t", { chunks: block.chunks })
            ]
          }
          case "whole-tool":
            return [P.toolCall(id, "t", { chunks: block.chunks })]
        }
      })
      const parts: Array<AiResponse.StreamPart<any>> = [P.metadata()]
      const left = sequences.map((sequence) => [...sequence])
      let k = 0
      while (left.some((sequence) => sequence.length > 0)) {
        const open = left.filter((sequence) => sequence.length > 0)
        parts.push(open[(script.order[k++] ?? 0) % open.length]!.shift()!)
      }
      parts.push(P.finish(script.reason, { input: 3, output: 5 }))
      const events = written(parts)
      const blocks = wellOrdered(events)

      const tools = script.blocks.flatMap((block, i) => block.kind === "tool" || block.kind === "whole-tool" ? [i] : [])
      for (const i of tools) {
        const made = blocks.filter((block) => block.type === "tool_use" && block.id === `b${i}`)
        expect(made).toHaveLength(1)
        expect(JSON.parse(made[0].json)).toEqual({ chunks: script.blocks[i]!.chunks })
      }
      const thinking = script.blocks.flatMap((block, i) =>
        block.kind === "reasoning"
          ? [{ thinking: block.chunks.join(""), signature: block.signed ? `sig-${i}` : "fallback:openai:" }]
          : []
      )
      const sort = (list: Array<{ thinking: string; signature: string }>) =>
        list.map((item) => JSON.stringify([item.signature, item.thinking])).sort()
      expect(
        sort(blocks.filter((b) => b.type === "thinking").map(({ signature, thinking }) => ({ signature, thinking })))
      )
        .toEqual(sort(thinking))
      const text = (list: Array<string>) => list.join("").length
      expect(text(blocks.filter((b) => b.type === "text").map((b) => b.text))).toBe(
        text(script.blocks.filter((b) => b.kind === "text").flatMap((b) => b.chunks))
      )
      expect(blocks.filter((b) => b.type === "text").every((b) => b.text !== "")).toBe(true)
      const stop = events.at(-2)!.data.delta.stop_reason
      if (script.reason === "length") expect(stop).toBe("max_tokens")
      if (
        script.reason === "tool-calls" ||
        (tools.length > 0 && script.reason !== "length" && script.reason !== "content-filter")
      ) {
        expect(stop).toBe("tool_use")
      }
    }
  )
})

describe("anthropic.whole and anthropic.error", () => {
  it("writes the documented whole answer of text and a tool call", () => {
    const expected = JSON.parse(fixture("response-tool.json"))
    const body = anthropic.whole([
      P.metadata(),
      P.text("I'll check the weather in San Francisco."),
      P.toolCall("toolu_01A09q90qw90lq917835lq9", "get_weather", { location: "San Francisco, CA", unit: "celsius" }),
      P.finish("tool-calls", { input: 472, output: 89, cacheRead: 0 })
    ], {
      ...P.answered,
      id: expected.id,
      model: expected.model
    })
    expect(body).toEqual(expected)
  })

  it("writes thinking with its signature, another family's with a fallback: one, and each stop reason", () => {
    const body = anthropic.whole([
      P.reasoning("mine", P.signed("sig")),
      P.reasoning("theirs", { fallback: { family: "openai" } }),
      P.text(""),
      P.finish("length", { input: 1, output: 2 })
    ], P.answered) as any
    expect(body.content).toEqual([
      { type: "thinking", thinking: "mine", signature: "sig" },
      { type: "thinking", thinking: "theirs", signature: "fallback:openai:" }
    ])
    expect(body.stop_reason).toBe("max_tokens")
    const stop = (reason: AiResponse.FinishReason) =>
      (anthropic.whole([P.finish(reason)], P.answered) as any).stop_reason
    expect([stop("stop"), stop("content-filter"), stop("tool-calls"), stop("unknown")]).toEqual([
      "end_turn",
      "refusal",
      "tool_use",
      "end_turn"
    ])
  })

  it("names each failure in Anthropic's error types", () => {
    const type = (kind: any) => (anthropic.error({ status: 500, kind, message: "m" }) as any).error.type
    expect(
      [
        "invalid_request",
        "authentication",
        "permission",
        "not_found",
        "request_too_large",
        "rate_limit",
        "overloaded",
        "timeout",
        "api_error"
      ].map(type)
    ).toEqual([
      "invalid_request_error",
      "authentication_error",
      "permission_error",
      "not_found_error",
      "request_too_large",
      "rate_limit_error",
      "overloaded_error",
      "api_error",
      "api_error"
    ])
    expect(anthropic.error({ status: 429, kind: "rate_limit", message: "slow down" })).toEqual({
      type: "error",
      error: { type: "rate_limit_error", message: "slow down" }
    })
  })
})
