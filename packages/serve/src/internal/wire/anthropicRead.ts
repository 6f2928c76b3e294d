/**
 * Reads an Anthropic Messages request (`POST /v1/messages`) into a {@link Call}. Strict about what
 * must be there (`model`, `messages`, `max_tokens`), lenient about fields it does not know. Server
 * tools (a tool with a `type` such as `web_search_20250305`) are refused: they are run by
 * Anthropic's servers, and no place the gateway calls runs them.
 */
import type * as LanguageModel from "effect/ai/LanguageModel"
import * as Prompt from "effect/ai/Prompt"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"

import * as blocks from "./anthropicBlocks.js"
import type { Call, ToolDefinition } from "./dialect.js"
import { Invalid } from "./dialect.js"

/** The request as far as it is checked before its blocks. */
export const Request = Schema.Struct({
  model: Schema.String.check(Schema.isMinLength(1)),
  max_tokens: Schema.Int.check(Schema.isGreaterThan(0)),
  messages: Schema.Array(
    Schema.Struct({ role: Schema.Literals(["user", "assistant", "system"]), content: blocks.Content })
  ),
  system: Schema.optional(blocks.Content),
  tools: Schema.optional(Schema.Array(blocks.Json)),
  tool_choice: Schema.optional(
    Schema.Struct({ type: Schema.Literals(["auto", "any", "tool", "none"]), name: Schema.optional(Schema.String) })
  ),
  temperature: Schema.optional(Schema.Number),
  top_p: Schema.optional(Schema.Number),
  stop_sequences: Schema.optional(Schema.Array(Schema.String)),
  thinking: Schema.optional(Schema.Struct({ type: Schema.String, budget_tokens: Schema.optional(Schema.Int) })),
  stream: Schema.optional(Schema.Boolean),
  metadata: Schema.optional(Schema.Struct({ user_id: Schema.optional(Schema.NullOr(Schema.String)) }))
})

/**
 * The messages, in order: a user turn's tool results become a `tool` message where they stand among its blocks;
 * a `system` message (Claude Code at its default model sends its environment so, after the first user message)
 * stays a system message where it stands: Anthropic places get it joined to the system prompt, OpenAI ones in place.
 */
const messagesOf = (messages: typeof Request.Type["messages"]): Result.Result<Array<Prompt.Message>, Invalid> =>
  Result.gen(function*() {
    const out: Array<Prompt.Message> = []
    const names = new Map<string, string>()
    for (const [m, message] of messages.entries()) {
      const path = ["messages", m, "content"]
      if (message.role === "system") {
        out.push(...yield* systemOf(message.content, path))
        continue
      }
      const raws = typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content
      const given: Array<blocks.Block> = []
      for (const [i, raw] of raws.entries()) given.push(yield* blocks.blockOf(raw, [...path, i]))
      if (message.role === "assistant") {
        const content: Array<Prompt.AssistantMessagePart> = []
        for (const [i, block] of given.entries()) {
          if (block.type === "text") {
            content.push(Prompt.textPart({ text: block.text, options: blocks.cacheOf(block.raw) }))
          } else if (block.type === "tool_use") {
            names.set(block.id, block.name)
            const options = blocks.cacheOf(block.raw)
            content.push(
              Prompt.toolCallPart({
                id: block.id,
                name: block.name,
                params: block.input,
                providerExecuted: false,
                options
              })
            )
          } else if (block.type === "thinking") content.push(blocks.thinkingOf(block))
          else if (block.type === "redacted_thinking") {
            const options = { anthropic: { redactedData: block.data }, fallback: { family: "anthropic" } }
            content.push(Prompt.reasoningPart({ text: "", options }))
          } else {
            return yield* blocks.refuse([...path, i, "type"], `an assistant turn cannot hold ${block.type}`)
          }
        }
        out.push(Prompt.assistantMessage({ content }))
        continue
      }
      let user: Array<Prompt.UserMessagePart> = []
      let tool: Array<Prompt.ToolResultPart> = []
      const flush = () => {
        if (user.length > 0) out.push(Prompt.userMessage({ content: user }))
        if (tool.length > 0) out.push(Prompt.toolMessage({ content: tool }))
        user = []
        tool = []
      }
      for (const [i, block] of given.entries()) {
        if (block.type === "tool_result") {
          if (user.length > 0) flush()
          tool.push(yield* blocks.resultOf(block, names.get(block.tool_use_id) ?? "", [...path, i]))
        } else if (block.type === "text") {
          if (tool.length > 0) flush()
          user.push(Prompt.textPart({ text: block.text, options: blocks.cacheOf(block.raw) }))
        } else if (block.type === "image" || block.type === "document") {
          if (tool.length > 0) flush()
          user.push(blocks.fileOf(block))
        } else {
          return yield* blocks.refuse([...path, i, "type"], `a user turn cannot hold ${block.type}`)
        }
      }
      flush()
    }
    return out
  })

const systemOf = (
  system: typeof Request.Type["system"],
  path: ReadonlyArray<PropertyKey>
): Result.Result<Array<Prompt.Message>, Invalid> =>
  Result.gen(function*() {
    if (system === undefined) return []
    if (typeof system === "string") return system === "" ? [] : [Prompt.systemMessage({ content: system })]
    const out: Array<Prompt.Message> = []
    for (const [i, raw] of system.entries()) {
      const block = yield* blocks.blockOf(raw, [...path, i])
      if (block.type !== "text") {
        return yield* blocks.refuse([...path, i, "type"], "a system prompt holds text blocks")
      }
      out.push(Prompt.systemMessage({ content: block.text, options: blocks.cacheOf(raw) }))
    }
    return out
  })

const Custom = Schema.Struct({
  name: Schema.String,
  description: Schema.optional(Schema.String),
  input_schema: blocks.Json
})

const toolsOf = (tools: ReadonlyArray<Record<string, unknown>>): Result.Result<Array<ToolDefinition>, Invalid> =>
  Result.gen(function*() {
    const out: Array<ToolDefinition> = []
    for (const [i, raw] of tools.entries()) {
      if (raw.type !== undefined && raw.type !== "custom") {
        return yield* blocks.refuse(
          ["tools", i, "type"],
          `${JSON.stringify(raw.type)} is a server tool run by Anthropic's own servers; fallback serve answers ` +
            `through any place and runs no server tools: leave it out, or define it as a tool the client runs`
        )
      }
      const tool = yield* blocks.decode(Custom, raw, ["tools", i])
      out.push({ name: tool.name, description: tool.description, parameters: tool.input_schema })
    }
    return out
  })

const choiceOf = (
  choice: typeof Request.Type["tool_choice"]
): Result.Result<LanguageModel.ToolChoice<string>, Invalid> => {
  switch (choice?.type) {
    case undefined:
    case "auto":
      return Result.succeed("auto")
    case "any":
      return Result.succeed("required")
    case "none":
      return Result.succeed("none")
    case "tool":
      return choice.name === undefined
        ? blocks.refuse(["tool_choice", "name"], "Field required")
        : Result.succeed({ tool: choice.name })
  }
}

/**
 * The conversation Claude Code names in `metadata.user_id`: `user_<hash>_account_<uuid>_session_<uuid>`, or
 * (newer versions) a JSON object with a `session_id`.
 */
export const sessionOf = (userId: string | null | undefined): string | undefined => {
  if (typeof userId !== "string") return undefined
  const named = /_session_([0-9A-Za-z-]+)$/.exec(userId)
  if (named !== null) return named[1]
  if (!userId.startsWith("{")) return undefined
  try {
    const parsed = JSON.parse(userId)
    return typeof parsed?.session_id === "string" && parsed.session_id !== "" ? parsed.session_id : undefined
  } catch {
    return undefined
  }
}

/** A Messages request body as a {@link Call}, or what is wrong with it. */
export const read = (body: unknown): Result.Result<Call, Invalid> =>
  Result.gen(function*() {
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      return yield* Result.fail(new Invalid({ message: "The body must be a JSON object (a Messages request)" }))
    }
    const request = yield* blocks.decode(Request, body, [])
    if (request.thinking?.type === "enabled" && request.thinking.budget_tokens === undefined) {
      return yield* blocks.refuse(["thinking", "budget_tokens"], "Field required")
    }
    const system = yield* systemOf(request.system, ["system"])
    const messages = yield* messagesOf(request.messages)
    const tools = yield* toolsOf(request.tools ?? [])
    const toolChoice = yield* choiceOf(request.tool_choice)
    const budget = request.thinking?.type === "enabled" ? request.thinking.budget_tokens : undefined
    return {
      wire: "anthropic-messages",
      model: request.model,
      prompt: Prompt.fromMessages([...system, ...messages]),
      tools,
      toolChoice,
      stream: request.stream === true,
      generation: {
        maxTokens: request.max_tokens,
        temperature: request.temperature,
        topP: request.top_p,
        stop: request.stop_sequences,
        thinking: budget === undefined ? undefined : { budgetTokens: budget }
      },
      conversation: sessionOf(request.metadata?.user_id)
    } satisfies Call
  })
