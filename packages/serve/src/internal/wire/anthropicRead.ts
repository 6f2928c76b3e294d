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
import * as SchemaIssue from "effect/SchemaIssue"

import type { Call, ToolDefinition } from "./dialect.js"
import { Invalid } from "./dialect.js"

const Json = Schema.Record(Schema.String, Schema.Unknown)
const Content = Schema.Union([Schema.String, Schema.Array(Json)])

/** The request as far as it is checked before its blocks. */
export const Request = Schema.Struct({
  model: Schema.String.check(Schema.isMinLength(1)),
  max_tokens: Schema.Int.check(Schema.isGreaterThan(0)),
  messages: Schema.Array(Schema.Struct({ role: Schema.Literals(["user", "assistant"]), content: Content })),
  system: Schema.optional(Content),
  tools: Schema.optional(Schema.Array(Json)),
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

const Source = Schema.Union([
  Schema.Struct({ type: Schema.Literal("base64"), media_type: Schema.String, data: Schema.String }),
  Schema.Struct({ type: Schema.Literal("url"), url: Schema.String }),
  Schema.Struct({ type: Schema.Literal("text"), media_type: Schema.optional(Schema.String), data: Schema.String })
])

const Blocks = {
  text: Schema.Struct({ text: Schema.String }),
  image: Schema.Struct({ source: Source }),
  document: Schema.Struct({ source: Source, title: Schema.optional(Schema.NullOr(Schema.String)) }),
  tool_use: Schema.Struct({ id: Schema.String, name: Schema.String, input: Schema.Unknown }),
  tool_result: Schema.Struct({
    tool_use_id: Schema.String,
    content: Schema.optional(Content),
    is_error: Schema.optional(Schema.Boolean)
  }),
  thinking: Schema.Struct({ thinking: Schema.String, signature: Schema.String }),
  redacted_thinking: Schema.Struct({ data: Schema.String })
} as const

type Kind = keyof typeof Blocks
type Block = {
  readonly [K in Kind]: { readonly type: K; readonly raw: Record<string, unknown> } & typeof Blocks[K]["Type"]
}[Kind]

const where = (path: ReadonlyArray<PropertyKey>) => path.map(String).join(".")

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

/** `value` decoded by `schema`, or an {@link Invalid} naming the field at `path` and what is wrong with it. */
const decode = <S extends Schema.Top & { readonly DecodingServices: never }>(
  schema: S,
  value: unknown,
  path: ReadonlyArray<PropertyKey>
): Result.Result<S["Type"], Invalid> =>
  Result.mapError(Schema.decodeUnknownResult(schema)(value, { errors: "first" }), (error) => {
    const issue = formatter(error.issue).issues[0]
    const at = where([...path, ...(issue?.path ?? []).map((key) => typeof key === "object" ? key.key : key)])
    const said = issue === undefined
      ? "is not valid"
      : issue.message === "Missing key"
      ? "Field required"
      : issue.message
    return new Invalid({ message: `${at}: ${said}`, param: at })
  })

const blockOf = (raw: Record<string, unknown>, path: ReadonlyArray<PropertyKey>): Result.Result<Block, Invalid> => {
  const type = raw.type
  if (typeof type !== "string" || !(type in Blocks)) {
    const at = where([...path, "type"])
    return Result.fail(
      new Invalid({
        message: `${at}: a content block of type ${JSON.stringify(type)} is not one fallback serve reads (it reads ${
          Object.keys(Blocks).join(", ")
        })`,
        param: at
      })
    )
  }
  return Result.map(
    decode(Blocks[type as Kind], raw, path),
    (block) => ({ ...(block as object), type, raw }) as Block
  )
}

/** A block's `cache_control`, kept as its part's `options.anthropic.cacheControl`. */
const cacheOf = (raw: Record<string, unknown>): Prompt.ProviderOptions =>
  raw.cache_control === undefined ? {} : { anthropic: { cacheControl: raw.cache_control as any } }

const fileOf = (block: Extract<Block, { type: "image" | "document" }>): Prompt.FilePart => {
  const source = block.source
  const fileName = block.type === "document" && typeof block.title === "string" ? block.title : undefined
  const options = cacheOf(block.raw)
  if (source.type === "url") {
    const mediaType = block.type === "image" ? "image/*" : "application/pdf"
    return Prompt.filePart({ mediaType, data: new URL(source.url), fileName, options })
  }
  if (source.type === "text") {
    const data = new TextEncoder().encode(source.data)
    return Prompt.filePart({ mediaType: source.media_type ?? "text/plain", data, fileName, options })
  }
  return Prompt.filePart({ mediaType: source.media_type, data: source.data, fileName, options })
}

/** Which family made a thinking block: Anthropic, unless the gateway wrote it for another (`fallback:<family>:`). */
const thinkingOf = (block: Extract<Block, { type: "thinking" }>): Prompt.ReasoningPart => {
  const written = /^fallback:([^:]*):/.exec(block.signature)
  return Prompt.reasoningPart({
    text: block.thinking,
    options: written === null
      ? { ...cacheOf(block.raw), anthropic: { signature: block.signature }, fallback: { family: "anthropic" } }
      : { fallback: { family: written[1]! } }
  })
}

const resultOf = (
  block: Extract<Block, { type: "tool_result" }>,
  name: string,
  path: ReadonlyArray<PropertyKey>
): Result.Result<Prompt.ToolResultPart, Invalid> =>
  Result.gen(function*() {
    const content = block.content ?? ""
    const base = { id: block.tool_use_id, name, isFailure: block.is_error === true, providerExecuted: false }
    if (typeof content === "string") {
      return Prompt.toolResultPart({ ...base, result: content, options: cacheOf(block.raw) })
    }
    const parts: Array<Prompt.TextPart | Prompt.FilePart> = []
    for (const [i, raw] of content.entries()) {
      const inner = yield* blockOf(raw, [...path, "content", i])
      if (inner.type === "text") {
        parts.push(Prompt.textPart({ text: inner.text }))
      } else if (inner.type === "image" || inner.type === "document") {
        parts.push(fileOf(inner))
      } else {
        const at = where([...path, "content", i, "type"])
        return yield* Result.fail(
          new Invalid({ message: `${at}: a tool result holds text, images and documents`, param: at })
        )
      }
    }
    const text = parts.every((part) => part.type === "text")
    return Prompt.toolResultPart({
      ...base,
      result: text ? parts.map((part) => (part as Prompt.TextPart).text).join("\n") : content,
      modelOutput: parts,
      options: cacheOf(block.raw)
    })
  })

/** The messages, in order: a user turn's tool results become a `tool` message where they stand among its blocks. */
const messagesOf = (messages: typeof Request.Type["messages"]): Result.Result<Array<Prompt.Message>, Invalid> =>
  Result.gen(function*() {
    const out: Array<Prompt.Message> = []
    const names = new Map<string, string>()
    for (const [m, message] of messages.entries()) {
      const path = ["messages", m, "content"]
      const raws = typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content
      const blocks: Array<Block> = []
      for (const [i, raw] of raws.entries()) blocks.push(yield* blockOf(raw, [...path, i]))
      if (message.role === "assistant") {
        const content: Array<Prompt.AssistantMessagePart> = []
        for (const [i, block] of blocks.entries()) {
          if (block.type === "text") content.push(Prompt.textPart({ text: block.text, options: cacheOf(block.raw) }))
          else if (block.type === "tool_use") {
            names.set(block.id, block.name)
            const options = cacheOf(block.raw)
            content.push(
              Prompt.toolCallPart({
                id: block.id,
                name: block.name,
                params: block.input,
                providerExecuted: false,
                options
              })
            )
          } else if (block.type === "thinking") content.push(thinkingOf(block))
          else if (block.type === "redacted_thinking") {
            const options = { anthropic: { redactedData: block.data }, fallback: { family: "anthropic" } }
            content.push(Prompt.reasoningPart({ text: "", options }))
          } else {
            const at = where([...path, i, "type"])
            return yield* Result.fail(
              new Invalid({ message: `${at}: an assistant turn cannot hold ${block.type}`, param: at })
            )
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
      for (const [i, block] of blocks.entries()) {
        if (block.type === "tool_result") {
          if (user.length > 0) flush()
          tool.push(yield* resultOf(block, names.get(block.tool_use_id) ?? "", [...path, i]))
        } else if (block.type === "text") {
          if (tool.length > 0) flush()
          user.push(Prompt.textPart({ text: block.text, options: cacheOf(block.raw) }))
        } else if (block.type === "image" || block.type === "document") {
          if (tool.length > 0) flush()
          user.push(fileOf(block))
        } else {
          const at = where([...path, i, "type"])
          return yield* Result.fail(new Invalid({ message: `${at}: a user turn cannot hold ${block.type}`, param: at }))
        }
      }
      flush()
    }
    return out
  })

const systemOf = (system: typeof Request.Type["system"]): Result.Result<Array<Prompt.Message>, Invalid> =>
  Result.gen(function*() {
    if (system === undefined) return []
    if (typeof system === "string") return system === "" ? [] : [Prompt.systemMessage({ content: system })]
    const out: Array<Prompt.Message> = []
    for (const [i, raw] of system.entries()) {
      const block = yield* blockOf(raw, ["system", i])
      if (block.type !== "text") {
        const at = `system.${i}.type`
        return yield* Result.fail(new Invalid({ message: `${at}: the system prompt holds text blocks`, param: at }))
      }
      out.push(Prompt.systemMessage({ content: block.text, options: cacheOf(raw) }))
    }
    return out
  })

const Custom = Schema.Struct({
  name: Schema.String,
  description: Schema.optional(Schema.String),
  input_schema: Json
})

const toolsOf = (tools: ReadonlyArray<Record<string, unknown>>): Result.Result<Array<ToolDefinition>, Invalid> =>
  Result.gen(function*() {
    const out: Array<ToolDefinition> = []
    for (const [i, raw] of tools.entries()) {
      if (raw.type !== undefined && raw.type !== "custom") {
        const at = `tools.${i}.type`
        return yield* Result.fail(
          new Invalid({
            message:
              `${at}: ${JSON.stringify(raw.type)} is a server tool run by Anthropic's own servers; fallback serve ` +
              `answers through any place and runs no server tools: leave it out, or define it as a tool the client runs`,
            param: at
          })
        )
      }
      const tool = yield* decode(Custom, raw, ["tools", i])
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
        ? Result.fail(new Invalid({ message: "tool_choice.name: Field required", param: "tool_choice.name" }))
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
    const request = yield* decode(Request, body, [])
    if (request.thinking?.type === "enabled" && request.thinking.budget_tokens === undefined) {
      return yield* Result.fail(
        new Invalid({ message: "thinking.budget_tokens: Field required", param: "thinking.budget_tokens" })
      )
    }
    const system = yield* systemOf(request.system)
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
