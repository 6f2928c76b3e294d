/** The mock provider's answers that are more than text: tool calls, JSON, and thinking first. */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"

import * as MockProvider from "../src/MockProvider.js"
import { answerText, calls, events, request, send } from "./calls.js"

describe("the mock provider answers with tool calls and JSON", () => {
  /** The tool call an answer makes, as a client of each API reads it, streamed or not. */
  const toolCall = (vendor: "anthropic" | "chat" | "responses", stream: boolean, text: string) => {
    const parts = stream ? events(text) : [JSON.parse(text)]
    switch (vendor) {
      case "anthropic": {
        if (!stream) {
          return { name: parts[0].content[0].name, input: parts[0].content[0].input, stop: parts[0].stop_reason }
        }
        const start = parts.find((e) => e.type === "content_block_start").content_block
        const json = parts.filter((e) => e.type === "content_block_delta").map((e) => e.delta.partial_json).join("")
        const stop = parts.find((e) => e.type === "message_delta").delta.stop_reason
        return { name: start.name, input: JSON.parse(json), stop }
      }
      case "chat": {
        const call = stream ? parts[0].choices[0].delta.tool_calls[0] : parts[0].choices[0].message.tool_calls[0]
        const stop = stream ? parts[1].choices[0].finish_reason : parts[0].choices[0].finish_reason
        return { name: call.function.name, input: JSON.parse(call.function.arguments), stop }
      }
      case "responses": {
        const done = stream ? parts.find((e) => e.type === "response.completed").response : parts[0]
        const item = done.output[0]
        const streamed = parts.filter((e) => e.type === "response.function_call_arguments.delta").map((e) => e.delta)
          .join("")
        if (stream) expect(streamed).toBe(item.arguments)
        return { name: item.name, input: JSON.parse(item.arguments), stop: done.status }
      }
    }
  }
  const stops = { anthropic: "tool_use", chat: "tool_calls", responses: "completed" } as const

  for (const vendor of ["anthropic", "chat", "responses"] as const) {
    for (const stream of [false, true]) {
      it.effect(`${vendor}${stream ? ", streamed" : ""}: a scripted tool call names the first tool offered`, () =>
        Effect.gen(function*() {
          const mock = yield* MockProvider.make()
          yield* mock.script([{ fault: "answer", tool: { input: { city: "Oslo" } } }])
          const call = calls[vendor]("m", stream)
          const tools = vendor === "chat"
            ? [{ type: "function", function: { name: "Weather", parameters: {} } }]
            : [{ type: vendor === "responses" ? "function" : undefined, name: "Weather", input_schema: {} }]
          const reply = yield* request(mock.url, { ...call, body: { ...call.body, tools } })
          expect(reply.status).toBe(200)
          expect(toolCall(vendor, stream, reply.text)).toEqual({
            name: "Weather",
            input: { city: "Oslo" },
            stop: stops[vendor]
          })
        }))
    }
  }

  it.effect("JSON asked of Anthropic through a forced tool comes as that tool's input; elsewhere as the text", () =>
    Effect.gen(function*() {
      const mock = yield* MockProvider.make({ bodies: true })
      const value = { city: "Oslo", degrees: 4 }
      yield* mock.script([{ fault: "answer", json: value, times: 2 }])
      const forced = calls.anthropic("m", false)
      const anthropic = yield* request(mock.url, {
        ...forced,
        body: {
          ...forced.body,
          tools: [{ name: "Answer", input_schema: {} }],
          tool_choice: { type: "tool", name: "Answer" }
        }
      })
      expect(toolCall("anthropic", false, anthropic.text)).toEqual({ name: "Answer", input: value, stop: "tool_use" })
      const responses = yield* request(mock.url, calls.responses("m", false))
      expect(JSON.parse(answerText("responses", false, responses.text))).toEqual(value)
      const log = (yield* mock.requests).log
      expect((log[0]!.body as any).tool_choice).toEqual({ type: "tool", name: "Answer" })
    }))

  it.effect("request bodies are kept only when asked for", () =>
    Effect.gen(function*() {
      const mock = yield* MockProvider.make()
      yield* request(mock.url, calls.chat("m", false))
      expect((yield* mock.requests).log[0]!.body).toBeUndefined()
    }))
})

describe("the mock provider answers with thinking first (think)", () => {
  it.live("streamed on the Anthropic wire: a thinking block of thinking_delta pieces and its signature, then the text", () =>
    Effect.gen(function*() {
      const mock = yield* MockProvider.make({ text: "the answer is 42" })
      const reply = yield* request(mock.url, calls.anthropic("claude-fault-think", true))
      expect([reply.status, reply.headers.get("content-type")]).toEqual([200, "text/event-stream"])
      const seen = events(reply.text)
      const shape = seen.map((e) =>
        e.type === "content_block_start"
          ? `start ${e.index} ${e.content_block.type}`
          : e.type === "content_block_delta"
          ? `${e.index} ${e.delta.type}`
          : e.type === "content_block_stop"
          ? `stop ${e.index}`
          : e.type
      )
      expect(shape).toEqual([
        "message_start",
        "start 0 thinking",
        "ping",
        "0 thinking_delta",
        "0 thinking_delta",
        "0 thinking_delta",
        "0 signature_delta",
        "stop 0",
        "start 1 text",
        "1 text_delta",
        "1 text_delta",
        "1 text_delta",
        "stop 1",
        "message_delta",
        "message_stop"
      ])
      const thought = seen.flatMap((e) => e.delta?.type === "thinking_delta" ? [e.delta.thinking] : []).join("")
      expect(thought).toBe("The user wants an answer. Weighing it first, then answering: the answer is 42")
      expect(seen.flatMap((e) => e.delta?.type === "text_delta" ? [e.delta.text] : []).join("")).toBe(
        "the answer is 42"
      )
      expect(seen.find((e) => e.delta?.type === "signature_delta").delta.signature.length).toBeGreaterThan(0)
      expect((yield* mock.requests).byFault).toEqual({ think: 1 })
    }))

  it.live("whole on the Anthropic wire: a thinking content block before the text; chosen by key too", () =>
    Effect.gen(function*() {
      const mock = yield* MockProvider.make({ text: "the answer is 42" })
      const byKey = { ...calls.anthropic("claude", false), headers: { "x-api-key": "key-fault-think" } }
      const reply = yield* request(mock.url, byKey)
      expect(reply.status).toBe(200)
      const body = JSON.parse(reply.text)
      expect(body.content.map((block: any) => block.type)).toEqual(["thinking", "text"])
      expect(body.content[0].thinking).toContain("Weighing it first")
      expect(body.content[0].signature.length).toBeGreaterThan(0)
      expect(body.content[1].text).toBe("the answer is 42")
      expect(body.stop_reason).toBe("end_turn")
    }))

  it.live("scripted over HTTP, with its own thinking; the other vendors answer plainly", () =>
    Effect.gen(function*() {
      const mock = yield* MockProvider.make({ text: "the answer is 42" })
      const rules = [{ fault: "think", thinking: "Six times seven." }]
      const scripted = yield* Effect.promise(() =>
        fetch(`${mock.url}/_mock/script`, { method: "POST", body: JSON.stringify({ rules }) })
      )
      expect(scripted.status).toBe(200)
      const anthropic = events((yield* request(mock.url, calls.anthropic("m", true))).text)
      expect(anthropic.flatMap((e) => e.delta?.type === "thinking_delta" ? [e.delta.thinking] : []).join("")).toBe(
        "Six times seven."
      )
      for (const vendor of ["chat", "responses", "gemini"] as const) {
        for (const stream of [true, false]) {
          const reply = yield* request(mock.url, calls[vendor]("m", stream))
          expect(answerText(vendor, stream, reply.text)).toBe("the answer is 42")
        }
      }
      expect((yield* mock.requests).byFault).toEqual({ think: 7 })
    }))

  it.live("a rule's pause sends the stream's pieces apart: the thinking arrives before the text is written", () =>
    Effect.gen(function*() {
      const mock = yield* MockProvider.make({ text: "the answer is 42" })
      yield* mock.script([{ fault: "think", pause: 100 }])
      const response = yield* Effect.promise(() => send(mock.url, calls.anthropic("m", true)))
      const reader = response.body!.getReader()
      const decoder = new TextDecoder()
      let seen = ""
      let reads = 0
      while (!seen.includes("thinking_delta")) {
        seen += decoder.decode((yield* Effect.promise(() => reader.read())).value)
        reads += 1
      }
      expect(seen).not.toContain("text_delta")
      const early = (yield* mock.requests).log[0]!.sent!
      for (;;) {
        const read = yield* Effect.promise(() => reader.read())
        if (read.done) break
        seen += decoder.decode(read.value)
        reads += 1
      }
      // Fifteen pieces, each written on its own (a busy reader may take two at once).
      expect(reads).toBeGreaterThan(3)
      expect(events(seen).at(-1).type).toBe("message_stop")
      // What was written, counted as it was written: part of the body at the first thinking piece, all of it at the end.
      expect(early).toBeGreaterThan(0)
      expect(early).toBeLessThan(Buffer.byteLength(seen))
      expect((yield* mock.requests).log[0]!.sent).toBe(Buffer.byteLength(seen))
    }))
})
