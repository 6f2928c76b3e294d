import Anthropic from "@anthropic-ai/sdk"
import { describe, expect, it } from "@effect/vitest"
import type { Response as AiResponse } from "effect/ai"

import { anthropic } from "../../src/internal/wire/anthropic.js"
import type { Frame } from "../../src/internal/wire/dialect.js"
import * as P from "./anthropicParts.js"
import { anthropicClient as client } from "./sdk.js"

const streamed = (frames: ReadonlyArray<Frame>) => client(P.sse(frames), "text/event-stream")

const ask = { model: "claude-sonnet-4-5", max_tokens: 1024, messages: [{ role: "user" as const, content: "hi" }] }

const stream = (parts: ReadonlyArray<AiResponse.StreamPart<any>>) => {
  const writer = anthropic.stream(P.answered, P.call)
  return [...parts.flatMap((part) => writer.part(part)), ...writer.end()]
}

describe("the official @anthropic-ai/sdk reads what the Anthropic dialect writes", () => {
  it("a streamed answer: thinking with its signature, text, a tool call's input from its JSON pieces, usage", async () => {
    const frames = stream([
      P.metadata(),
      P.reasoningStart("r"),
      P.reasoningDelta("r", "Look at the file "),
      P.reasoningDelta("r", "first."),
      P.reasoningEnd("r", P.signed("EqQBCgIYAh")),
      ...P.textThenCall({ id: "t", pieces: ["Reading ", "it."] }, {
        id: "toolu_1",
        name: "Read",
        pieces: ["{\"file_path\": \"/re", "po/README.md\", \"limit\": 20}"]
      }),
      P.toolCall("toolu_2", "Bash", { command: "ls" }),
      P.finish("tool-calls", { input: 120, output: 45, cacheRead: 1000 })
    ])
    const message = await streamed(frames).messages.stream(ask).finalMessage()
    expect(message).toMatchObject({
      id: P.answered.id,
      model: P.answered.model,
      role: "assistant",
      stop_reason: "tool_use",
      usage: { input_tokens: 120, output_tokens: 45, cache_read_input_tokens: 1000 }
    })
    expect(message.content).toEqual([
      { type: "thinking", thinking: "Look at the file first.", signature: "EqQBCgIYAh" },
      { type: "text", text: "Reading it." },
      { type: "tool_use", id: "toolu_1", name: "Read", input: { file_path: "/repo/README.md", limit: 20 } },
      { type: "tool_use", id: "toolu_2", name: "Bash", input: { command: "ls" } }
    ])
  })

  it("a streamed answer as raw events, through messages.create({ stream: true })", async () => {
    const frames = stream([P.textDelta("t", "Hello"), P.finish("stop", { input: 3, output: 1 })])
    const events: Array<string> = []
    for await (const event of await streamed(frames).messages.create({ ...ask, stream: true })) events.push(event.type)
    expect(events).toEqual([
      "message_start",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop"
    ])
  })

  it("an error event after the commit point surfaces as the SDK's APIError, with its type", async () => {
    const writer = anthropic.stream(P.answered, P.call)
    const frames = [
      ...writer.part(P.textDelta("t", "half an ans")),
      ...writer.failed({ status: 529, kind: "overloaded", message: "every place in the chain is overloaded" })
    ]
    const failed = await streamed(frames).messages.stream(ask).finalMessage().then(
      () => undefined,
      (error: unknown) => error
    )
    expect(failed).toBeInstanceOf(Anthropic.APIError)
    expect((failed as InstanceType<typeof Anthropic.APIError>).type).toBe("overloaded_error")
    expect((failed as Error).message).toMatch(/every place in the chain is overloaded/)
  })

  it("a whole answer, through messages.create", async () => {
    const body = anthropic.whole([
      P.metadata(),
      P.reasoning("Count them.", P.signed("sig-1")),
      P.text("There are 42 lines."),
      P.finish("stop", { input: 10, output: 7 })
    ], P.answered)
    const message = await client(JSON.stringify(body), "application/json").messages.create(ask)
    expect(message).toMatchObject({
      id: P.answered.id,
      type: "message",
      model: P.answered.model,
      stop_reason: "end_turn",
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 7 }
    })
    expect(message.content).toEqual([
      { type: "thinking", thinking: "Count them.", signature: "sig-1" },
      { type: "text", text: "There are 42 lines." }
    ])
  })

  it("a whole error, with the status the gateway sets, as the SDK's error of that status and type", async () => {
    const body = anthropic.error({ status: 429, kind: "rate_limit", message: "every account is rate limited" })
    const failed = await client(JSON.stringify(body), "application/json", 429).messages.create(ask).then(
      () => undefined,
      (error: unknown) => error
    )
    expect(failed).toBeInstanceOf(Anthropic.RateLimitError)
    expect((failed as InstanceType<typeof Anthropic.APIError>).type).toBe("rate_limit_error")
  })
})
