import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import * as Response from "effect/ai/Response"
import { readFileSync } from "node:fs"

import type { Answered, Failed, Frame } from "../../src/internal/wire/dialect.js"
import { responses } from "../../src/internal/wire/responses.js"
import { reading, sse, streamedIn, textThenCall, thought } from "./parts.js"
import { openaiClient as client } from "./sdk.js"

const text = (name: string): string => readFileSync(new URL(`../fixtures/responses/${name}`, import.meta.url), "utf8")

const fixture = (name: string): any => JSON.parse(text(name))

const recorded = (name: string): any =>
  JSON.parse(
    readFileSync(new URL(`../../../../test/fixtures/wire/openai-responses/${name}.json`, import.meta.url), "utf8")
  )
    .body

const { call, refused } = reading(responses)

const answered: Answered = { model: "anthropic/work/claude-x", id: "resp_abc123", created: 1767225600 }

const part = (type: string, params: Record<string, unknown>): any => Response.makePart(type as any, params as any)

const finish = (reason: Response.FinishReason) =>
  part("finish", {
    reason,
    usage: new Response.Usage({ inputTokens: { total: 20, cacheRead: 5 }, outputTokens: { total: 9 } } as any)
  })

const streamed: ReadonlyArray<any> = [
  part("response-metadata", {}),
  ...thought("r", "Check the file."),
  ...textThenCall({ id: "t", pieces: ["Reading ", "it."] }, {
    id: "call_1",
    name: "exec_command",
    pieces: ["{\"cmd\":", "\"cat notes.txt\"}"]
  }),
  finish("tool-calls")
]

const streaming = call(recorded("codex-first-turn"))

const written = (parts: ReadonlyArray<any>, failed?: Failed): Array<Frame> => {
  const writer = responses.stream(answered, streaming)
  return [...parts.flatMap((p) => writer.part(p)), ...(failed === undefined ? writer.end() : writer.failed(failed))]
}

const events = (frames: ReadonlyArray<Frame>) => frames.map((f) => JSON.parse(f.data))

describe("responses reads", () => {
  it("Codex's first turn: developer messages as system, function and custom tools, effort, its cache key", () => {
    const body = recorded("codex-first-turn")
    expect(streaming).toMatchObject({ wire: "openai-responses", model: body.model, stream: true, toolChoice: "auto" })
    expect(streaming.conversation).toBe(body.prompt_cache_key)
    expect(streaming.generation).toEqual({ thinking: { budgetTokens: 10000 } })
    expect(streaming.prompt.content.map((m) => m.role)).toEqual(["system", "system", "user", "user"])
    // custom tools (apply_patch's grammar) are offered as functions of { input }; tool_search is left out
    const offered = body.tools.filter((t: any) => t.type === "function" || t.type === "custom").map((t: any) => t.name)
    expect(streaming.tools.map((t) => t.name)).toEqual(offered)
    expect(streaming.tools.find((t) => t.name === "apply_patch")?.custom).toBe(true)
  })

  it("Codex at its default model: the function tools of its additional_tools item, which is no message", () => {
    const body = recorded("codex-default-model")
    expect(body.tools).toBeUndefined()
    expect(body.input[0].type).toBe("additional_tools")
    const read = call(body)
    expect(read.conversation).toBe(body.prompt_cache_key)
    expect(read.prompt.content.map((m) => m.role)).toEqual(
      body.input.slice(1).map((item: any) => item.role === "user" ? "user" : "system")
    )
    // the `functions` namespace is called by bare name (`exec`, a custom grammar tool, too); other namespaces left out
    const functions = body.input[0].tools.find((t: any) => t.type === "namespace" && t.name === "functions").tools
    expect(read.tools.map((t) => t.name)).toEqual(functions.map((t: any) => t.name))
    expect(read.tools.find((t) => t.name === "exec")?.custom).toBe(true)
    expect(read.tools.map((t) => t.name)).not.toContain("sleep")
    const wait = functions.find((t: any) => t.name === "wait")
    expect(read.tools.find((t) => t.name === "wait")).toEqual({
      name: "wait",
      description: wait.description,
      parameters: wait.parameters
    })
  })

  it("additional_tools beside tools: top-level functions too, a name offered twice once, anywhere in the input", () => {
    const fn = (name: string, description = name) => ({
      type: "function",
      name,
      description,
      parameters: { type: "object" }
    })
    const read = call({
      model: "m",
      tools: [fn("a"), { type: "custom", name: "apply_patch" }],
      input: [
        { type: "message", role: "user", content: "hi" },
        { type: "additional_tools", role: "developer", tools: [fn("b"), fn("a", "again"), { type: "web_search" }] }
      ]
    })
    expect(read.tools.map((t) => [t.name, t.description, t.custom])).toEqual([
      ["a", "a", undefined],
      ["apply_patch", expect.stringContaining("free text"), true],
      ["b", "b", undefined]
    ])
    expect(read.prompt.content.map((m) => m.role)).toEqual(["user"])
    expect(refused({ model: "m", input: [{ type: "additional_tools", tools: "no" }] }).param).toBe("input[0].tools")
  })

  it("Codex's turns after a tool call: the call and its output, the answer, the next question", () => {
    const resume = call(recorded("codex-resume"))
    expect(resume.prompt.content.map((m) => m.role)).toEqual([
      "system",
      "system",
      "user",
      "user",
      "assistant",
      "tool",
      "assistant",
      "user"
    ])
    expect(resume.prompt.content[4]!.content).toMatchObject([{
      type: "tool-call",
      id: "call_mock8",
      name: "exec_command",
      params: { cmd: "cat notes.txt" }
    }])
    expect(resume.prompt.content[5]!.content).toMatchObject([{
      type: "tool-result",
      id: "call_mock8",
      name: "exec_command"
    }])
    expect(call(recorded("codex-tool-result")).prompt.content.at(-1)!.role).toBe("tool")
  })

  it("a string input is one user message", () => {
    expect(call(fixture("string-input.request.json")).prompt.content).toMatchObject([{
      role: "user",
      content: [{ type: "text", text: "Tell me a three sentence bedtime story about a unicorn." }]
    }])
  })

  it("the SDK's history: instructions first, an image, reasoning kept as OpenAI's, one named tool", () => {
    const read = call(fixture("sdk-history.request.json"))
    expect(read.generation).toEqual({ maxTokens: 4096, temperature: 1, topP: 1, thinking: { budgetTokens: 31999 } })
    expect(read.conversation).toBe("conv-42")
    expect(read.toolChoice).toEqual({ tool: "get_weather" })
    expect(read.tools).toEqual([{
      name: "get_weather",
      description: "Get current temperature for a given location.",
      parameters: expect.objectContaining({ required: ["location"] })
    }])
    const [instructions, developer, user, assistant, tool, answer] = read.prompt.content
    expect(instructions).toMatchObject({ role: "system", content: "You are a coding agent." })
    expect(developer).toMatchObject({ role: "system", content: "Prefer short answers." })
    expect(user!.content[1]).toMatchObject({ type: "file", mediaType: "image/jpeg", data: "/9j/4AAQ" })
    expect(assistant!.content).toMatchObject([
      {
        type: "reasoning",
        text: "**Checking the weather** I should call get_weather.",
        options: {
          fallback: { family: "openai" },
          openai: { itemId: "rs_6820f383d7c08191846711c5df8233bc", encryptedContent: "gAAAAABoIPODk6wz..." }
        }
      },
      { type: "tool-call", id: "call_12345xyz", params: { location: "Paris, France" } }
    ])
    expect(tool!.content).toMatchObject([{ type: "tool-result", id: "call_12345xyz", result: "{\"temperature\": 14}" }])
    expect(answer).toMatchObject({ role: "assistant", content: [{ type: "text", text: "It is 14°C in Paris." }] })
  })

  it("refuses what it cannot follow, naming the field", () => {
    const base = { model: "m", input: "hi" }
    expect(refused({ ...base, previous_response_id: "resp_1" })).toMatchObject({
      param: "previous_response_id",
      message: expect.stringContaining("store: false")
    })
    expect(refused({ ...base, input: [{ type: "item_reference", id: "msg_1" }] }).param).toBe("input[0].type")
    expect(refused({ ...base, input: [{ type: "function_call", call_id: "c", name: "f", arguments: "{" }] }).param)
      .toBe("input[0].arguments")
    expect(refused({ ...base, reasoning: { effort: "max" } }).param).toBe("reasoning.effort")
    expect(refused({ ...base, text: { format: { type: "json_schema" } } }).param).toBe("text.format")
    expect(refused({ ...base, tool_choice: { type: "function", name: "web_search" } }).param).toBe("tool_choice")
  })
})

describe("responses writes a whole answer", () => {
  const whole = [
    part("text", { text: "Reading it." }),
    part("tool-call", { id: "call_1", name: "exec_command", params: { cmd: "ls" }, providerExecuted: false }),
    finish("tool-calls")
  ]

  it("in the shape OpenAI documents, which the SDK reads", async () => {
    const body = responses.whole(whole, answered) as any
    const documented = fixture("whole.response.json")
    for (const key of Object.keys(body)) expect(documented).toHaveProperty(key)
    expect(Object.keys(body.output[1]).sort()).toEqual(Object.keys(documented.output[1]).sort())
    expect(body).toMatchObject({
      id: "resp_abc123",
      status: "completed",
      model: "anthropic/work/claude-x",
      usage: { input_tokens: 20, output_tokens: 9, total_tokens: 29, input_tokens_details: { cached_tokens: 5 } }
    })
    const answer = await client(JSON.stringify(body), "application/json").responses.create({ model: "m", input: "hi" })
    expect(answer.output_text).toBe("Reading it.")
    expect(answer.output[1]).toMatchObject({ type: "function_call", call_id: "call_1", arguments: "{\"cmd\":\"ls\"}" })
  })

  it("a cut answer is incomplete, saying why", () => {
    expect(responses.whole([part("text", { text: "Once" }), finish("length")], answered)).toMatchObject({
      status: "incomplete",
      incomplete_details: { reason: "max_output_tokens" }
    })
  })
})

describe("responses streams", () => {
  it("created first, each item added, its deltas, done, and the whole response completed last", () => {
    const all = events(written(streamed))
    expect(all.map((e) => e.type)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.reasoning_summary_part.added",
      "response.reasoning_summary_text.delta",
      "response.reasoning_summary_text.done",
      "response.reasoning_summary_part.done",
      "response.output_item.done",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.output_item.added",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.done",
      "response.output_item.done",
      "response.completed"
    ])
    expect(all.map((e) => e.sequence_number)).toEqual(all.map((_, i) => i))
    const documented = text("stream.sse").split("\n\n").filter(Boolean).map((e: string) =>
      JSON.parse(e.split("\n")[1]!.slice(6))
    )
    for (
      const type of [
        "response.output_item.added",
        "response.output_text.delta",
        "response.function_call_arguments.done"
      ]
    ) {
      const ours = all.find((e) => e.type === type)
      for (const key of Object.keys(documented.find((e: any) => e.type === type))) expect(ours).toHaveProperty(key)
    }
    expect(all.at(-1).response).toMatchObject({ status: "completed", model: "anthropic/work/claude-x" })
    expect(all.at(-1).response.output.map((i: any) => i.type)).toEqual(["reasoning", "message", "function_call"])
  })

  it("which the openai SDK accumulates into the text and the function call", async () => {
    const final = await client(sse(written(streamed)), "text/event-stream").responses
      .stream({ model: "m", input: "hi" })
      .finalResponse()
    expect(final.output_text).toBe("Reading it.")
    expect(final.output.find((i) => i.type === "function_call")).toMatchObject({
      call_id: "call_1",
      name: "exec_command",
      arguments: "{\"cmd\":\"cat notes.txt\"}"
    })
    expect(final.usage?.total_tokens).toBe(29)
  })

  it("a failure after the commit point is an error event the SDK throws, then response.failed", async () => {
    const failed: Failed = { status: 529, kind: "overloaded", message: "every place is down" }
    const frames = written(streamed.slice(0, 6), failed)
    const [error, last] = events(frames).slice(-2)
    expect(error).toMatchObject({ type: "error", code: "server_is_overloaded", message: "every place is down" })
    expect(last).toMatchObject({
      type: "response.failed",
      response: { status: "failed", error: { code: "server_error", message: "every place is down" } }
    })
    await expect(
      client(sse(frames), "text/event-stream").responses.stream({ model: "m", input: "hi" }).finalResponse()
    ).rejects.toThrow(/every place is down/)
  })

  const Segment = Schema.Struct({
    kind: Schema.Literals(["text", "reasoning", "call", "whole"]),
    pieces: Schema.Array(Schema.String)
  })

  it.prop("any answer streams one item at a time, in order, response.completed last", {
    segments: Schema.Array(Segment)
  }, ({ segments }) => {
    const parts: Array<any> = [part("response-metadata", {})]
    segments.forEach((s, i) => {
      const id = `s${i}`
      if (s.kind === "whole") {
        return parts.push(part("tool-call", { id, name: "f", params: s.pieces, providerExecuted: false }))
      }
      parts.push(...streamedIn(s.kind, id, s.pieces))
    })
    parts.push(finish("stop"))
    const all = events(written(parts))
    expect(all.slice(0, 2).map((e) => e.type)).toEqual(["response.created", "response.in_progress"])
    expect(all.at(-1).type).toBe("response.completed")
    expect(all.map((e) => e.sequence_number)).toEqual(all.map((_, i) => i))
    let open: number | undefined
    let next = 0
    const args = new Map<number, string>()
    for (const e of all.slice(2, -1)) {
      if (e.type === "response.output_item.added") {
        expect(open).toBeUndefined()
        expect(e.output_index).toBe(next++)
        open = e.output_index
      } else if (e.type === "response.output_item.done") {
        expect(e.output_index).toBe(open)
        if (e.item.type === "function_call") expect(e.item.arguments).toBe(args.get(open!) ?? "")
        open = undefined
      } else {
        expect(e.output_index).toBe(open)
        if (e.type === "response.function_call_arguments.delta") args.set(open!, (args.get(open!) ?? "") + e.delta)
      }
    }
    expect(open).toBeUndefined()
    const calls = all.at(-1).response.output.filter((i: any) => i.type === "function_call")
    expect(calls.map((c: any) => c.call_id)).toEqual(
      segments.flatMap((s, i) => s.kind === "call" || s.kind === "whole" ? [`s${i}`] : [])
    )
  })
})

describe("responses errors", () => {
  it("as OpenAI writes them, a rate limit saying when to try again", () => {
    expect(responses.error({ status: 429, kind: "rate_limit", message: "all cooling.", retryAfter: 12 })).toEqual({
      error: {
        message: "all cooling. Please try again in 12s.",
        type: "requests",
        param: null,
        code: "rate_limit_exceeded"
      }
    })
    expect(responses.error({ status: 400, kind: "invalid_request", message: "bad", param: "input" })).toMatchObject({
      error: { type: "invalid_request_error", param: "input" }
    })
  })
})
