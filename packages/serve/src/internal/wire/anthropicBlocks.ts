/**
 * The content blocks of an Anthropic Messages request, each checked by its own schema and read into
 * the `effect/ai` prompt part it is: text, images and documents as files, tool results, thinking.
 */
import * as Prompt from "effect/ai/Prompt"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as SchemaIssue from "effect/SchemaIssue"

import { Invalid } from "./dialect.js"

export const Json = Schema.Record(Schema.String, Schema.Unknown)
export const Content = Schema.Union([Schema.String, Schema.Array(Json)])

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
export type Block = {
  readonly [K in Kind]: { readonly type: K; readonly raw: Record<string, unknown> } & typeof Blocks[K]["Type"]
}[Kind]

export const where = (path: ReadonlyArray<PropertyKey>) => path.map(String).join(".")

/** An {@link Invalid} naming the field at `path`. */
export const refuse = (path: ReadonlyArray<PropertyKey>, said: string): Result.Result<never, Invalid> => {
  const at = where(path)
  return Result.fail(new Invalid({ message: `${at}: ${said}`, param: at }))
}

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

/** `value` decoded by `schema`, or an {@link Invalid} naming the field at `path` and what is wrong with it. */
export const decode = <S extends Schema.Top & { readonly DecodingServices: never }>(
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

export const blockOf = (
  raw: Record<string, unknown>,
  path: ReadonlyArray<PropertyKey>
): Result.Result<Block, Invalid> => {
  const type = raw.type
  if (typeof type !== "string" || !(type in Blocks)) {
    const known = Object.keys(Blocks).join(", ")
    return refuse(
      [...path, "type"],
      `a content block of type ${JSON.stringify(type)} is not one fallback serve reads (it reads ${known})`
    )
  }
  return Result.map(
    decode(Blocks[type as Kind], raw, path),
    (block) => ({ ...(block as object), type, raw }) as Block
  )
}

/** A block's `cache_control`, kept as its part's `options.anthropic.cacheControl`. */
export const cacheOf = (raw: Record<string, unknown>): Prompt.ProviderOptions =>
  raw.cache_control === undefined ? {} : { anthropic: { cacheControl: raw.cache_control as any } }

export const fileOf = (block: Extract<Block, { type: "image" | "document" }>): Prompt.FilePart => {
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
export const thinkingOf = (block: Extract<Block, { type: "thinking" }>): Prompt.ReasoningPart => {
  const written = /^fallback:([^:]*):/.exec(block.signature)
  return Prompt.reasoningPart({
    text: block.thinking,
    options: written === null
      ? { ...cacheOf(block.raw), anthropic: { signature: block.signature }, fallback: { family: "anthropic" } }
      : { fallback: { family: written[1]! } }
  })
}

export const resultOf = (
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
        return yield* refuse([...path, "content", i, "type"], "a tool result holds text, images and documents")
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
