import { describe, expect, it } from "@effect/vitest"
import * as Response from "effect/ai/Response"
import { readFileSync } from "node:fs"

import type { Answered, Call } from "../../src/internal/wire/dialect.js"
import { responses } from "../../src/internal/wire/responses.js"
import { reading, sse } from "./parts.js"
import { openaiClient as client } from "./sdk.js"

const recorded = (name: string): any =>
  JSON.parse(
    readFileSync(new URL(`../../../../test/fixtures/wire/openai-responses/${name}.json`, import.meta.url), "utf8")
  ).body

const { call } = reading(responses)

const part = (type: string, params: Record<string, unknown>): any => Response.makePart(type as any, params as any)

const finish = part("finish", {
  reason: "tool-calls",
  usage: new Response.Usage({ inputTokens: { total: 20 }, outputTokens: { total: 9 } } as any)
})

const answered: Answered = { model: "anthropic/work/claude-x", id: "resp_abc123", created: 1767225600 }

const script = "const r = await tools.exec_command({ cmd: \"ls\" });\ntext(r);"

const codex = call(recorded("codex-default-model"))

describe("responses custom tools, read", () => {
  it("Codex's exec (a grammar tool in its functions namespace) offered as a function of { input }, its grammar told", () => {
    const exec = recorded("codex-default-model").input[0].tools[0].tools.find((t: any) => t.name === "exec")
    const read = codex.tools.find((t) => t.name === "exec")!
    expect(read.custom).toBe(true)
    expect(read.description).toContain(exec.description)
    expect(read.description).toContain("free text (not JSON)")
    expect(read.description).toContain(exec.format.definition.trim())
    expect(read.parameters).toEqual({
      type: "object",
      properties: { input: { type: "string", description: expect.stringContaining("lark grammar") } },
      required: ["input"],
      additionalProperties: false
    })
    // the function tools beside it are not custom
    expect(codex.tools.find((t) => t.name === "wait")?.custom).toBeUndefined()
  })

  it("a custom tool in tools, without a format: free text; tool_choice may name it", () => {
    const read = call({
      model: "m",
      input: "patch it",
      tools: [{ type: "custom", name: "apply_patch", description: "Edit files." }],
      tool_choice: { type: "custom", name: "apply_patch" }
    })
    expect(read.tools).toMatchObject([{ name: "apply_patch", custom: true }])
    expect(read.tools[0]!.description).toMatch(/^Edit files\.\n\n.*free text \(not JSON\)\.$/s)
    expect(read.toolChoice).toEqual({ tool: "apply_patch" })
  })

  it("a custom_tool_call and its custom_tool_call_output in the input: the call with params { input }, its result", () => {
    const read = call({
      model: "m",
      input: [
        { type: "message", role: "user", content: "list the files" },
        { type: "custom_tool_call", call_id: "toolu_1", name: "exec", input: script },
        { type: "custom_tool_call_output", call_id: "toolu_1", output: "a.txt\nb.txt" }
      ]
    })
    const [, assistant, tool] = read.prompt.content
    expect(assistant!.content).toMatchObject([{
      type: "tool-call",
      id: "toolu_1",
      name: "exec",
      params: { input: script }
    }])
    expect(tool!.content).toMatchObject([{ type: "tool-result", id: "toolu_1", name: "exec", result: "a.txt\nb.txt" }])
  })
})

describe("responses custom tools, written", () => {
  const streamedCall = [
    part("response-metadata", {}),
    part("tool-params-start", { id: "toolu_1", name: "exec", providerExecuted: false }),
    part("tool-params-delta", { id: "toolu_1", delta: "{\"input\": \"const r = await " }),
    part("tool-params-delta", { id: "toolu_1", delta: "tools.exec_command({ cmd: \\\"ls\\\" });\\ntext(r);\"}" }),
    part("tool-params-end", { id: "toolu_1" }),
    part("tool-call", { id: "toolu_1", name: "exec", params: { input: script }, providerExecuted: false }),
    finish
  ]

  const written = (parts: ReadonlyArray<any>, forCall: Call = codex) => {
    const writer = responses.stream(answered, forCall)
    return [...parts.flatMap((p) => writer.part(p)), ...writer.end()]
  }

  it("streamed as a custom_tool_call item: added, its input's delta and done, the item done", () => {
    const all = written(streamedCall).map((f) => JSON.parse(f.data))
    expect(all.map((e) => e.type)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.custom_tool_call_input.delta",
      "response.custom_tool_call_input.done",
      "response.output_item.done",
      "response.completed"
    ])
    expect(all[2].item).toMatchObject({ type: "custom_tool_call", call_id: "toolu_1", name: "exec", input: "" })
    expect(all[3]).toMatchObject({ item_id: all[2].item.id, output_index: 0, delta: script })
    expect(all[5].item).toMatchObject({
      type: "custom_tool_call",
      call_id: "toolu_1",
      input: script,
      status: "completed"
    })
    expect(all.at(-1).response.output).toEqual([all[5].item])
  })

  it("which the openai SDK accumulates into the custom tool call with its input", async () => {
    const final = await client(sse(written(streamedCall)), "text/event-stream").responses
      .stream({ model: "m", input: "hi" })
      .finalResponse()
    expect(final.output).toMatchObject([{ type: "custom_tool_call", call_id: "toolu_1", name: "exec", input: script }])
  })

  it("a tool-call part alone, a function tool beside it, and arguments not shaped as { input } handed back as written", () => {
    const all = written([
      part("tool-call", { id: "c1", name: "exec", params: { input: "text(1)" }, providerExecuted: false }),
      part("tool-call", { id: "c2", name: "wait", params: { ms: 5 }, providerExecuted: false }),
      part("tool-call", { id: "c3", name: "exec", params: { code: "x" }, providerExecuted: false }),
      finish
    ]).map((f) => JSON.parse(f.data))
    expect(all.at(-1).response.output).toMatchObject([
      { type: "custom_tool_call", call_id: "c1", input: "text(1)" },
      { type: "function_call", call_id: "c2", name: "wait", arguments: "{\"ms\":5}" },
      { type: "custom_tool_call", call_id: "c3", input: "{\"code\":\"x\"}" }
    ])
  })

  it("for a call without custom tools, the same name is a function call", () => {
    const plain = call({ model: "m", input: "hi", tools: [{ type: "function", name: "exec", parameters: {} }] })
    const all = written(streamedCall, plain).map((f) => JSON.parse(f.data))
    expect(all.at(-1).response.output).toMatchObject([{ type: "function_call", name: "exec" }])
  })

  it("whole, given the call: a custom_tool_call the SDK reads", async () => {
    const parts = [
      part("tool-call", { id: "toolu_1", name: "exec", params: { input: script }, providerExecuted: false }),
      finish
    ]
    const body = responses.whole(parts, answered, codex)
    const answer = await client(JSON.stringify(body), "application/json").responses.create({ model: "m", input: "hi" })
    expect(answer.output).toMatchObject([{ type: "custom_tool_call", call_id: "toolu_1", name: "exec", input: script }])
  })
})
