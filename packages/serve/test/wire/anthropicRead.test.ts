import { describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import type { Prompt } from "effect/ai"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"

import { anthropic } from "../../src/internal/wire/anthropic.js"
import { countTokens } from "../../src/internal/wire/countTokens.js"
import type { Call } from "../../src/internal/wire/dialect.js"

const fixtures = join(import.meta.dirname, "../fixtures/anthropic")
const recorded = join(import.meta.dirname, "../../../../test/fixtures/wire/anthropic-messages")
const fixture = (name: string) => JSON.parse(readFileSync(join(fixtures, name), "utf8"))

const read = (body: unknown): Call => {
  const result = anthropic.read(body)
  if (Result.isFailure(result)) throw new Error(`not read: ${result.failure.message}`)
  return result.success
}

const refused = (body: unknown) => {
  const result = anthropic.read(body)
  if (Result.isSuccess(result)) throw new Error("read, though it should be refused")
  return { message: result.failure.message, param: result.failure.param }
}

/** A prompt as plain rows, to compare with what the request said. */
const rows = (prompt: Prompt.Prompt) =>
  prompt.content.map((message) =>
    message.role === "system"
      ? { role: "system", text: message.content, options: message.options }
      : {
        role: message.role,
        parts: (message.content as ReadonlyArray<Prompt.Part>).map((part) => {
          switch (part.type) {
            case "text":
              return { text: part.text }
            case "reasoning":
              return { reasoning: part.text, options: part.options }
            case "tool-call":
              return { call: part.id, name: part.name, params: part.params }
            case "tool-result":
              return { result: part.id, name: part.name, isFailure: part.isFailure, value: part.result }
            case "file":
              return { file: part.mediaType, data: part.data instanceof URL ? part.data.href : part.data }
            default:
              return { other: part.type }
          }
        })
      }
  )

/** What a request says, in order: its system text, each block's text, tool calls and results, thinking and signature. */
const asked = (body: any): Array<string> => {
  const system = typeof body.system === "string"
    ? [`system:${body.system}`]
    : (body.system ?? []).map((b: any) => `system:${b.text}`)
  const blocks = body.messages.flatMap((message: any) => {
    const content = typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content
    return content.map((b: any) => {
      switch (b.type) {
        case "text":
          return `${message.role === "system" ? "system" : "text"}:${b.text}`
        case "tool_use":
          return `call:${b.id}:${b.name}:${JSON.stringify(b.input)}`
        case "tool_result":
          return `result:${b.tool_use_id}:${b.is_error === true}`
        case "thinking":
          return `thinking:${b.thinking}:${b.signature}`
        case "redacted_thinking":
          return `redacted:${b.data}`
        default:
          return `file:${b.source.type}`
      }
    })
  })
  return [...system, ...blocks]
}

/** The same of a read prompt. */
const said = (prompt: Prompt.Prompt): Array<string> =>
  prompt.content.flatMap((message) =>
    message.role === "system" ? [`system:${message.content}`] : (message.content as ReadonlyArray<Prompt.Part>).map(
      (part) => {
        const anthropic = (part.options as any).anthropic
        switch (part.type) {
          case "text":
            return `text:${part.text}`
          case "tool-call":
            return `call:${part.id}:${part.name}:${JSON.stringify(part.params)}`
          case "tool-result":
            return `result:${part.id}:${part.isFailure}`
          case "reasoning":
            return anthropic?.redactedData === undefined
              ? `thinking:${part.text}:${anthropic?.signature}`
              : `redacted:${anthropic.redactedData}`
          case "file":
            return `file:${part.data instanceof URL ? "url" : part.mediaType === "text/plain" ? "text" : "base64"}`
          default:
            return part.type
        }
      }
    )
  )

const base = { model: "claude-sonnet-4-5", max_tokens: 100, messages: [{ role: "user", content: "hi" }] }

describe("anthropic.read", () => {
  it("reads a Claude Code request: system blocks, history in order, thinking kept with its signature", () => {
    const call = read(fixture("request-agent.json"))
    expect(call.wire).toBe("anthropic-messages")
    expect(call.model).toBe("claude-sonnet-4-5-20250929")
    expect(call.stream).toBe(true)
    expect(call.conversation).toBe("3a2b1c0d-9e8f-47a6-b5c4-d3e2f1a0b9c8")
    expect(call.toolChoice).toBe("auto")
    expect(call.generation).toEqual({
      maxTokens: 32000,
      temperature: 1,
      topP: undefined,
      stop: undefined,
      thinking: { budgetTokens: 10000 }
    })
    expect(call.tools.map((tool) => tool.name)).toEqual(["Bash", "Read"])
    expect(call.tools[0]!.parameters.required).toEqual(["command"])
    expect(rows(call.prompt)).toEqual([
      {
        role: "system",
        text: "You are Claude Code, Anthropic's official CLI for Claude.",
        options: { anthropic: { cacheControl: { type: "ephemeral" } } }
      },
      {
        role: "system",
        text: "You are an interactive CLI tool that helps users with software engineering tasks.",
        options: { anthropic: { cacheControl: { type: "ephemeral" } } }
      },
      {
        role: "user",
        parts: [
          {
            text:
              "<system-reminder>As you answer the user's questions, you can use the following context.</system-reminder>"
          },
          { text: "How many lines are in README.md?" }
        ]
      },
      {
        role: "assistant",
        parts: [
          {
            reasoning: "The user wants a line count. I can run wc -l on the file.",
            options: {
              anthropic: {
                signature: "ErUBCkYIBRgCIkB0c2lnbmF0dXJlLW9mLXRoZS10aGlua2luZy1ibG9jay1pbi10aGUtZml4dHVyZQ=="
              },
              fallback: { family: "anthropic" }
            }
          },
          { text: "I'll count the lines." },
          { call: "toolu_01A09q90qw90lq917835lq9", name: "Bash", params: { command: "wc -l README.md" } }
        ]
      },
      {
        role: "tool",
        parts: [{ result: "toolu_01A09q90qw90lq917835lq9", name: "Bash", isFailure: false, value: "42 README.md" }]
      },
      { role: "user", parts: [{ text: "Now read it." }] },
      {
        role: "assistant",
        parts: [
          {
            reasoning: "",
            options: {
              anthropic: {
                redactedData:
                  "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB5URj"
              },
              fallback: { family: "anthropic" }
            }
          },
          { call: "toolu_02B1", name: "Read", params: { file_path: "/repo/README.md" } }
        ]
      },
      {
        role: "tool",
        parts: [
          { result: "toolu_02B1", name: "Read", isFailure: false, value: "# fallback\nOne answer, many places." },
          { result: "toolu_missing", name: "", isFailure: true, value: "permission denied" }
        ]
      }
    ])
    const user = call.prompt.content[2]!
    expect(user.role === "user" && user.content[1]!.options).toEqual({
      anthropic: { cacheControl: { type: "ephemeral" } }
    })
  })

  it("reads images and documents as files, a forced tool, stop sequences and top_p", () => {
    const call = read(fixture("request-files.json"))
    expect(call.stream).toBe(false)
    expect(call.conversation).toBeUndefined()
    expect(call.toolChoice).toEqual({ tool: "describe" })
    expect(call.tools).toEqual([{
      name: "describe",
      description: undefined,
      parameters: { type: "object", properties: { what: { type: "string" } } }
    }])
    expect(call.generation).toMatchObject({ maxTokens: 1024, topP: 0.9, stop: ["\n\nHuman:"] })
    const [system, user] = rows(call.prompt)
    expect(system).toEqual({ role: "system", text: "Describe what you are shown.", options: {} })
    expect(user).toEqual({
      role: "user",
      parts: [
        { file: "image/png", data: expect.stringMatching(/^iVBORw0KGgo/) },
        {
          file: "image/*",
          data: "https://upload.wikimedia.org/wikipedia/commons/a/a7/Camponotus_flavomarginatus_ant.jpg"
        },
        { file: "application/pdf", data: "JVBERi0xLjQK" },
        { file: "text/plain", data: new TextEncoder().encode("Plain notes.") },
        { text: "What are these?" }
      ]
    })
  })

  it("every request, recorded from the real claude CLI or written here, reads into a call saying what it said", () => {
    const bodies = [
      ...readdirSync(recorded).filter((name) => name.endsWith(".json")).flatMap((name) => {
        const recording = JSON.parse(readFileSync(join(recorded, name), "utf8"))
        return recording.method === "POST" && String(recording.path).startsWith("/v1/messages")
          ? [{ name, body: recording.body, session: recording.headers["x-claude-code-session-id"] }]
          : []
      }),
      {
        name: "request-agent.json",
        body: fixture("request-agent.json"),
        session: "3a2b1c0d-9e8f-47a6-b5c4-d3e2f1a0b9c8"
      },
      { name: "request-files.json", body: fixture("request-files.json"), session: undefined }
    ]
    expect(bodies.length).toBeGreaterThanOrEqual(7)
    for (const { body, name, session } of bodies) {
      const call = read(body)
      expect(said(call.prompt), name).toEqual(asked(body))
      expect(call.conversation, name).toBe(session)
      expect(call.stream, name).toBe(body.stream === true)
      expect(call.tools.map((tool) => tool.name), name).toEqual((body.tools ?? []).map((tool: any) => tool.name))
      expect(call.generation.maxTokens, name).toBe(body.max_tokens)
      expect(call.generation.thinking?.budgetTokens, name).toBe(body.thinking?.budget_tokens)
    }
  })

  it("claude at its default model: the system message it sends among the messages stays where it stands", () => {
    const recording = JSON.parse(readFileSync(join(recorded, "claude-default-model.json"), "utf8"))
    const body = recording.body
    expect(body.messages[1].role).toBe("system")
    const call = read(body)
    const roles = call.prompt.content.map((message) => message.role)
    const system = body.system.length
    expect(roles).toEqual([...Array(system).fill("system"), "user", "system"])
    const environment = call.prompt.content.at(-1)!
    expect(environment.role === "system" && environment.content).toBe(body.messages[1].content[0].text)
    expect(environment.content).toMatch(/^# Environment\n/)
    expect(call.model).toBe("claude-opus-5-5")
    expect(call.generation.maxTokens).toBe(128000)
    expect(call.conversation).toBe(recording.headers["x-claude-code-session-id"])
  })

  it("a system message among the messages: a string, or text blocks with their cache_control; never other blocks", () => {
    const call = read({
      ...base,
      system: "Be brief.",
      messages: [
        { role: "user", content: "hi" },
        { role: "system", content: "Today is Monday." },
        { role: "system", content: [{ type: "text", text: "Env.", cache_control: { type: "ephemeral" } }] },
        { role: "assistant", content: "Hello." }
      ]
    })
    expect(rows(call.prompt)).toEqual([
      { role: "system", text: "Be brief.", options: {} },
      { role: "user", parts: [{ text: "hi" }] },
      { role: "system", text: "Today is Monday.", options: {} },
      { role: "system", text: "Env.", options: { anthropic: { cacheControl: { type: "ephemeral" } } } },
      { role: "assistant", parts: [{ text: "Hello." }] }
    ])
    expect(refused({
      ...base,
      messages: [{ role: "user", content: "hi" }, {
        role: "system",
        content: [{ type: "image", source: { type: "url", url: "https://example.com/a.png" } }]
      }]
    })).toEqual({
      message: "messages.1.content.0.type: a system prompt holds text blocks",
      param: "messages.1.content.0.type"
    })
    expect(refused({ ...base, messages: [{ role: "tool", content: "x" }] }).param).toBe("messages.0.role")
  })

  it("knows a thinking block the gateway wrote for another family by its fallback: signature", () => {
    const call = read({
      ...base,
      messages: [
        { role: "user", content: "hi" },
        { role: "assistant", content: [{ type: "thinking", thinking: "summary", signature: "fallback:openai:" }] }
      ]
    })
    expect(rows(call.prompt)[1]).toEqual({
      role: "assistant",
      parts: [{ reasoning: "summary", options: { fallback: { family: "openai" } } }]
    })
  })

  it("maps tool_choice any and none, reads the newer JSON user_id, and leaves thinking off when disabled", () => {
    expect(read({ ...base, tool_choice: { type: "any" } }).toolChoice).toBe("required")
    expect(read({ ...base, tool_choice: { type: "none" } }).toolChoice).toBe("none")
    const user_id = JSON.stringify({ device_id: "d", account_uuid: "a", session_id: "s-1" })
    expect(read({ ...base, metadata: { user_id } }).conversation).toBe("s-1")
    expect(read({ ...base, metadata: { user_id: "someone" } }).conversation).toBeUndefined()
    expect(read({ ...base, thinking: { type: "disabled" } }).generation.thinking).toBeUndefined()
  })

  it("is lenient about fields it does not know", () => {
    const call = read({
      ...base,
      service_tier: "auto",
      context_management: { edits: [] },
      messages: [{ role: "user", content: [{ type: "text", text: "hi", citations: null }] }],
      tools: [{ name: "t", input_schema: { type: "object" }, eager_input_streaming: true }]
    })
    expect(rows(call.prompt)).toEqual([{ role: "user", parts: [{ text: "hi" }] }])
  })

  it("refuses what must be there, naming the field", () => {
    expect(refused({ messages: [], max_tokens: 1 })).toEqual({ message: "model: Field required", param: "model" })
    expect(refused({ model: "m", messages: [] })).toEqual({
      message: "max_tokens: Field required",
      param: "max_tokens"
    })
    expect(refused({ model: "m", max_tokens: 1 })).toEqual({ message: "messages: Field required", param: "messages" })
    expect(refused({ ...base, max_tokens: 0 }).param).toBe("max_tokens")
    expect(refused("hello").message).toMatch(/JSON object/)
    expect(refused({ ...base, messages: [{ role: "tool", content: "x" }] }).param).toBe("messages.0.role")
    expect(refused({ ...base, messages: [{ role: "user", content: [{ type: "tool_use", name: "x", input: {} }] }] }))
      .toEqual({ message: "messages.0.content.0.id: Field required", param: "messages.0.content.0.id" })
    expect(refused({ ...base, thinking: { type: "enabled" } }).param).toBe("thinking.budget_tokens")
    expect(refused({ ...base, tool_choice: { type: "tool" } }).param).toBe("tool_choice.name")
  })

  it("refuses a content block it does not read, and a block in the wrong turn", () => {
    const unknown = refused({
      ...base,
      messages: [{ role: "assistant", content: [{ type: "server_tool_use", id: "s", name: "web_search", input: {} }] }]
    })
    expect(unknown.param).toBe("messages.0.content.0.type")
    expect(unknown.message).toMatch(/"server_tool_use" is not one fallback serve reads/)
    expect(
      refused({ ...base, messages: [{ role: "user", content: [{ type: "thinking", thinking: "", signature: "" }] }] })
    )
      .toMatchObject({ param: "messages.0.content.0.type" })
  })

  it("refuses a server tool, naming it, rather than answering without it", () => {
    const server = refused({ ...base, tools: [{ type: "web_search_20250305", name: "web_search", max_uses: 5 }] })
    expect(server.param).toBe("tools.0.type")
    expect(server.message).toMatch(/"web_search_20250305" is a server tool/)
    expect(refused({ ...base, tools: [{ name: "t" }] })).toEqual({
      message: "tools.0.input_schema: Field required",
      param: "tools.0.input_schema"
    })
  })
})

describe("countTokens", () => {
  it("estimates about four characters a token over system, messages and tools", () => {
    const counted = countTokens({
      model: "m",
      system: "x".repeat(400),
      messages: [{ role: "user", content: [{ type: "text", text: "y".repeat(400) }] }],
      tools: [{ name: "t", input_schema: { type: "object" } }]
    })
    expect(Result.isSuccess(counted)).toBe(true)
    const tokens = Result.getOrThrow(counted).input_tokens
    expect(tokens).toBeGreaterThanOrEqual(200)
    expect(tokens).toBeLessThan(215)
  })

  it("grows with the request, and counts a Claude Code request", () => {
    const small = Result.getOrThrow(countTokens(base)).input_tokens
    const agent = Result.getOrThrow(countTokens(fixture("request-agent.json"))).input_tokens
    expect(small).toBeGreaterThan(0)
    expect(agent).toBeGreaterThan(small)
  })

  it("counts each recorded claude request, more for a longer history", () => {
    const count = (name: string) =>
      Result.getOrThrow(countTokens(JSON.parse(readFileSync(join(recorded, name), "utf8")).body)).input_tokens
    const first = count("claude-first-turn.json")
    expect(first).toBeGreaterThan(1000)
    expect(count("claude-tool-result.json")).toBeGreaterThan(first)
  })

  it("refuses a body without model or messages, naming the field", () => {
    const missing = countTokens({ model: "m" })
    expect(Result.isFailure(missing) && missing.failure.param).toBe("messages")
  })
})
