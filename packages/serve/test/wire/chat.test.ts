import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import type * as Prompt from "effect/ai/Prompt"
import * as Response from "effect/ai/Response"
import { readFileSync } from "node:fs"

import { chat } from "../../src/internal/wire/chat.js"
import type { Answered, Call, Failed, Frame } from "../../src/internal/wire/dialect.js"
import { reading, sse, streamedIn, textThenCall, thought } from "./parts.js"
import { openaiClient as client } from "./sdk.js"

const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`../fixtures/chat/${name}`, import.meta.url), "utf8"))

const { call, refused } = reading(chat)

const answered: Answered = { model: "openai/work/gpt-x", id: "chatcmpl-abc123", created: 1767225600 }

const usage = (input: number, output: number) =>
  new Response.Usage({ inputTokens: { total: input }, outputTokens: { total: output } } as any)

const part = (type: string, params: Record<string, unknown>): any => Response.makePart(type as any, params as any)

const finish = (reason: Response.FinishReason, input = 12, output = 7) =>
  part("finish", { reason, usage: usage(input, output) })

/** A text answer then one tool call, streamed as the upstream wires release it. */
const streamed: ReadonlyArray<any> = [
  part("response-metadata", { id: "up-1", modelId: "gpt-x", timestamp: undefined }),
  ...thought("r", "Look first."),
  ...textThenCall({ id: "t", pieces: ["Reading ", "it."] }, {
    id: "call_1",
    name: "read",
    pieces: ["{\"filePath\":", "\"index.ts\"}"]
  }),
  finish("tool-calls")
]

const written = (parts: ReadonlyArray<any>, asked: Call, failed?: Failed): Array<Frame> => {
  const writer = chat.stream(answered, asked)
  return [...parts.flatMap((p) => writer.part(p)), ...(failed === undefined ? writer.end() : writer.failed(failed))]
}

const streaming = call(fixture("opencode-tools.request.json"))

describe("chat reads", () => {
  it("opencode's turn after a tool call: system, user, the call and its result, tools, usage asked", () => {
    const read = streaming
    expect(read).toMatchObject({ wire: "openai-chat", model: "gpt-4.1", stream: true, toolChoice: "auto" })
    expect(read.conversation).toBe("ses_6f1e2d3c4b5a")
    expect(read.generation).toEqual({ maxTokens: 32000, temperature: 0 })
    expect(read.tools.map((t) => t.name)).toEqual(["bash", "read"])
    expect(read.tools[0]!.parameters).toMatchObject({ required: ["command", "description"] })
    const [system, user, assistant, tool, next] = read.prompt.content
    expect(system).toMatchObject({ role: "system", content: expect.stringContaining("opencode") })
    expect(user).toMatchObject({ role: "user", content: [{ type: "text", text: "List the files in src." }] })
    expect(assistant).toMatchObject({
      role: "assistant",
      content: [{ type: "text", text: "I'll list them." }, {
        type: "tool-call",
        id: "call_Ab12",
        name: "bash",
        params: { command: "ls src", description: "Lists files in src" }
      }]
    })
    expect(tool).toMatchObject({
      role: "tool",
      content: [{ type: "tool-result", id: "call_Ab12", name: "bash", result: "index.ts\nutil.ts\n" }]
    })
    expect(next!.role).toBe("user")
  })

  it("the SDK's vision call: developer as system, images as files, effort as a budget, one named tool", () => {
    const read = call(fixture("sdk-vision.request.json"))
    expect(read.stream).toBe(false)
    expect(read.toolChoice).toEqual({ tool: "get_weather" })
    expect(read.generation).toEqual({
      maxTokens: 2048,
      topP: 0.9,
      stop: ["\n\n", "END"],
      thinking: { budgetTokens: 4000 }
    })
    expect(read.prompt.content[0]).toMatchObject({ role: "system", content: "Answer in one sentence." })
    const [text, url, data] = (read.prompt.content[1] as Prompt.UserMessage).content as ReadonlyArray<any>
    expect(text).toMatchObject({ type: "text", text: "What's in this image?" })
    expect(url.type).toBe("file")
    expect(String(url.data)).toContain("upload.wikimedia.org")
    expect(data).toMatchObject({ type: "file", mediaType: "image/png", data: "iVBORw0KGgo=" })
  })

  it("reasoning a model sent back is a reasoning part marked as OpenAI's, stop as one sequence", () => {
    const read = call(fixture("reasoning-history.request.json"))
    expect(read.generation).toEqual({ stop: ["STOP"] })
    expect(read.prompt.content[0]).toMatchObject({ role: "system", content: "Be brief." })
    expect(read.prompt.content[2]).toMatchObject({
      role: "assistant",
      content: [
        { type: "reasoning", text: "Compare the tenths: 8 > 1.", options: { fallback: { family: "openai" } } },
        { type: "text", text: "9.8 is greater." }
      ]
    })
  })

  it("every request the real opencode run sent reads (test/fixtures/wire/openai-chat)", () => {
    const recorded = (name: string): Call =>
      call(
        (JSON.parse(
          readFileSync(new URL(`../../../../test/fixtures/wire/openai-chat/${name}.json`, import.meta.url), "utf8")
        ) as any).body
      )
    const first = recorded("opencode-first-turn")
    expect(first).toMatchObject({ stream: true, toolChoice: "auto", generation: { maxTokens: 32000 } })
    expect(first.tools.length).toBeGreaterThan(3)
    expect(recorded("opencode-side-mock-small-1").tools).toEqual([])
    const resume = recorded("opencode-resume")
    expect(resume.prompt.content.map((m) => m.role)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
      "assistant",
      "user"
    ])
    expect(resume.prompt.content[2]!.content).toMatchObject([{ type: "tool-call", id: "call_mock12", name: "read" }])
    expect(resume.prompt.content[3]!.content).toMatchObject([{ type: "tool-result", id: "call_mock12", name: "read" }])
    const writer = chat.stream(answered, recorded("opencode-tool-result"))
    expect([...writer.part(finish("stop"))].some((f) => f.data.includes("\"usage\""))).toBe(true)
  })

  it("refuses what it cannot carry, naming the field", () => {
    const base = { model: "m", messages: [{ role: "user", content: "hi" }] }
    const broken = {
      ...base,
      messages: [{
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "{\"a\":" } }]
      }]
    }
    expect(refused(broken).param).toBe("messages[0].tool_calls[0].function.arguments")
    expect(refused({ ...base, messages: [{ role: "robot", content: "x" }] }).param).toBe("messages[0].role")
    expect(refused({ ...base, n: 2 }).param).toBe("n")
    expect(refused({ ...base, reasoning_effort: "huge" }).param).toBe("reasoning_effort")
    expect(refused({ ...base, tool_choice: { type: "function", function: { name: "nope" } } }).param).toBe(
      "tool_choice"
    )
    expect(refused({ messages: base.messages }).param).toBe("model")
    expect(refused({ ...base, response_format: { type: "json_object" } }).param).toBe("response_format")
    expect(refused([]).param).toBe("body")
  })
})

describe("chat writes a whole answer", () => {
  const parts = streamed.filter((p) => !/-(start|delta|end)$/.test(p.type)).concat()
  const whole = [part("reasoning", { text: "Look first." }), part("text", { text: "Reading it." }), ...parts]

  it("in the shape OpenAI documents, the answering place as its model", () => {
    const body = chat.whole(whole, answered) as any
    const shape = (v: unknown): unknown =>
      Array.isArray(v) ? v.map(shape) : typeof v === "object" && v !== null
        ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, shape((v as any)[k])]))
        : typeof v
    const documented = fixture("whole.response.json") as any
    expect(Object.keys(body).sort()).toEqual(Object.keys(documented).sort())
    expect(shape(body.choices[0].message.tool_calls)).toEqual(shape(documented.choices[0].message.tool_calls))
    expect(body).toMatchObject({
      id: "chatcmpl-abc123",
      model: "openai/work/gpt-x",
      choices: [{ message: { content: "Reading it.", reasoning_content: "Look first." }, finish_reason: "tool_calls" }],
      usage: { prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 }
    })
  })

  it("which the openai SDK reads", async () => {
    const answer = await client(JSON.stringify(chat.whole(whole, answered)), "application/json").chat.completions
      .create({ model: "m", messages: [{ role: "user", content: "hi" }] })
    expect(answer.choices[0]!.message.content).toBe("Reading it.")
    expect(answer.choices[0]!.message.tool_calls?.[0]).toMatchObject({
      function: { arguments: "{\"filePath\":\"index.ts\"}" }
    })
    expect(answer.model).toBe("openai/work/gpt-x")
  })

  it("finishes as OpenAI names it", () => {
    const reasonOf = (reason: Response.FinishReason, parts: ReadonlyArray<any> = []) =>
      (chat.whole([...parts, finish(reason)], answered) as any).choices[0].finish_reason
    expect(reasonOf("stop")).toBe("stop")
    expect(reasonOf("length")).toBe("length")
    expect(reasonOf("content-filter")).toBe("content_filter")
    expect(reasonOf("unknown", whole.filter((p) => p.type === "tool-call"))).toBe("tool_calls")
  })
})

describe("chat streams", () => {
  it("role first, reasoning, text and the tool call's arguments in order, the finish, usage when asked, [DONE]", () => {
    const chunks = written(streamed, streaming).map((f) => f.data)
    expect(chunks.at(-1)).toBe("[DONE]")
    const data = chunks.slice(0, -1).map((c) => JSON.parse(c))
    expect(data[0].choices[0].delta).toEqual({ role: "assistant", content: "" })
    expect(data.map((d) => d.choices[0]?.delta?.reasoning_content).filter(Boolean)).toEqual(["Look first."])
    const calls = data.flatMap((d) => d.choices[0]?.delta?.tool_calls ?? [])
    expect(calls[0]).toEqual({ index: 0, id: "call_1", type: "function", function: { name: "read", arguments: "" } })
    expect(calls.slice(1).map((c: any) => c.function.arguments).join("")).toBe("{\"filePath\":\"index.ts\"}")
    expect(data.at(-2).choices[0].finish_reason).toBe("tool_calls")
    expect(data.at(-1)).toMatchObject({ choices: [], usage: { total_tokens: 19 } })
    expect(data.every((d) => d.model === "openai/work/gpt-x" && d.id === "chatcmpl-abc123")).toBe(true)
  })

  it("no usage chunk unless the call asked for one", () => {
    const unasked = call({ ...(fixture("opencode-tools.request.json") as object), stream_options: undefined })
    expect(written(streamed, unasked).some((f) => f.data.includes("\"usage\""))).toBe(false)
  })

  it("which the openai SDK accumulates into the text and the tool call", async () => {
    const body = sse(written(streamed, streaming))
    const final = await client(body, "text/event-stream").chat.completions
      .stream({ model: "m", messages: [{ role: "user", content: "hi" }], stream: true })
      .finalChatCompletion()
    expect(final.choices[0]!.message.content).toBe("Reading it.")
    expect(final.choices[0]!.message.tool_calls?.[0]).toMatchObject({
      id: "call_1",
      function: { name: "read", arguments: "{\"filePath\":\"index.ts\"}" }
    })
    expect(final.usage?.total_tokens).toBe(19)
  })

  it("a failure after the first chunk is an error the SDK throws, and no [DONE]", async () => {
    const failed: Failed = { status: 429, kind: "rate_limit", message: "every place is cooling", retryAfter: 30 }
    const frames = written(streamed.slice(0, 6), streaming, failed)
    expect(frames.at(-1)!.data).not.toBe("[DONE]")
    expect(JSON.parse(frames.at(-1)!.data)).toEqual({
      error: {
        message: "every place is cooling Please try again in 30s.",
        type: "requests",
        code: "rate_limit_exceeded",
        param: null
      }
    })
    const stream = await client(sse(frames), "text/event-stream").chat.completions
      .create({ model: "m", messages: [{ role: "user", content: "hi" }], stream: true })
    const seen: Array<string> = []
    await expect((async () => {
      for await (const chunk of stream) seen.push(chunk.choices[0]?.delta?.content ?? "")
    })()).rejects.toThrow(/every place is cooling/)
    expect(seen.join("")).toBe("Reading ")
  })

  const Segment = Schema.Union([
    Schema.Struct({ kind: Schema.Literal("text"), pieces: Schema.Array(Schema.String) }),
    Schema.Struct({ kind: Schema.Literal("reasoning"), pieces: Schema.Array(Schema.String) }),
    Schema.Struct({ kind: Schema.Literal("call"), pieces: Schema.Array(Schema.String), whole: Schema.Boolean })
  ])

  it.prop("any answer streams role first, each call's arguments in order, the finish, [DONE] last", {
    segments: Schema.Array(Segment)
  }, ({ segments }) => {
    const parts: Array<any> = [part("response-metadata", {})]
    const expected: Array<{ id: string; args: string }> = []
    segments.forEach((s, i) => {
      const id = `s${i}`
      if (s.kind === "call") {
        const args = s.pieces.join("")
        expected.push({ id, args: s.whole ? JSON.stringify(args) : args })
        if (s.whole) return parts.push(part("tool-call", { id, name: "f", params: args, providerExecuted: false }))
      }
      parts.push(...streamedIn(s.kind, id, s.pieces))
    })
    parts.push(finish("stop"))
    const frames = written(parts, streaming).map((f) => f.data)
    expect(frames.at(-1)).toBe("[DONE]")
    expect(frames.filter((f) => f === "[DONE]")).toHaveLength(1)
    const data = frames.slice(0, -1).map((c) => JSON.parse(c))
    expect(data[0].choices[0].delta.role).toBe("assistant")
    expect(data.slice(1).some((d) => d.choices[0]?.delta?.role !== undefined)).toBe(false)
    const calls = data.flatMap((d) => d.choices[0]?.delta?.tool_calls ?? [])
    const byIndex = expected.map((_, index) => calls.filter((c: any) => c.index === index))
    byIndex.forEach((pieces, index) => {
      expect(pieces[0].id).toBe(expected[index]!.id)
      expect(pieces.map((c: any) => c.function.arguments).join("")).toBe(expected[index]!.args)
    })
    expect(data.filter((d) => d.choices[0]?.finish_reason != null)).toHaveLength(1)
    expect(data.at(-1).usage).toBeDefined()
  })
})

describe("chat errors", () => {
  it("as OpenAI writes them", () => {
    expect(chat.error({ status: 401, kind: "authentication", message: "the key was refused" })).toEqual({
      error: { message: "the key was refused", type: "invalid_request_error", param: null, code: "invalid_api_key" }
    })
    expect(chat.error({ status: 503, kind: "overloaded", message: "busy" })).toMatchObject({
      error: { type: "server_error", code: "server_is_overloaded" }
    })
  })
})
