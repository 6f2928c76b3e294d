import type * as LanguageModel from "effect/ai/LanguageModel"
import type * as Prompt from "effect/ai/Prompt"
import type * as Response from "effect/ai/Response"
import * as Tool from "effect/ai/Tool"

/**
 * What a streamed answer's events came to: the parts they make, and whether the answer ended (the
 * vendor's end marker) or failed inside the stream (the error's data, to classify).
 *
 * @internal
 */
export interface Read {
  readonly parts: ReadonlyArray<Response.StreamPartEncoded>
  readonly done?: boolean | undefined
  readonly error?: string | undefined
}

/**
 * One wire format as a language model: where a call goes, its headers, its body, and how a whole
 * answer and a stream of events read.
 *
 * @internal
 */
export interface Wire {
  readonly module: string
  readonly path: string
  readonly headers: (key: string | undefined) => Record<string, string>
  readonly body: (
    options: LanguageModel.ProviderOptions,
    model: Model,
    stream: boolean
  ) => Record<string, unknown>
  readonly parts: (body: any, options: LanguageModel.ProviderOptions) => Array<Response.PartEncoded>
  /** A reader for one stream: events in, parts out (it keeps what the stream told so far). */
  readonly reader: (options: LanguageModel.ProviderOptions) => Reader
}

/**
 * Reads one stream's events; `ended` says what a stream that ended with no end marker still
 * finishes with, where what it told is a whole answer (a server that leaves `[DONE]` out).
 *
 * @internal
 */
export interface Reader {
  readonly read: (event: { readonly event: string; readonly data: string }) => Read
  readonly ended?: (() => ReadonlyArray<Response.StreamPartEncoded> | undefined) | undefined
}

/**
 * A model of a provider: its name at the provider, and its answer's length cap.
 *
 * @internal
 */
export interface Model {
  readonly model: string
  readonly maxTokens: number
}

/** @internal */
export const parse = (data: string): Record<string, any> | undefined => {
  try {
    const value: unknown = JSON.parse(data)
    return typeof value === "object" && value !== null ? value as Record<string, any> : undefined
  } catch {
    return undefined
  }
}

/** @internal */
export const parseArgs = (text: string): unknown => {
  if (text.trim() === "") return {}
  try {
    return Tool.unsafeSecureJsonParse(text)
  } catch {
    return text
  }
}

/** The text of a message's parts (files named, reasoning left out). @internal */
export const textOf = (parts: ReadonlyArray<Prompt.Part> | string): string =>
  typeof parts === "string"
    ? parts
    : parts.flatMap((part) => part.type === "text" ? [part.text] : []).join("\n")

/** A tool result as the text a provider is sent. @internal */
export const resultText = (result: unknown): string => typeof result === "string" ? result : JSON.stringify(result)

/** The tools a call offers, in the order given, as name, description and JSON Schema. @internal */
export const toolsOf = (options: LanguageModel.ProviderOptions) => {
  const choice = options.toolChoice
  const only = typeof choice === "object" && "oneOf" in choice ? new Set<string>(choice.oneOf) : undefined
  return options.tools
    .filter((tool) => !Tool.isProviderDefined(tool) && (only === undefined || only.has(tool.name)))
    .map((tool) => ({
      name: tool.name,
      description: Tool.getDescription(tool as any),
      schema: Tool.getJsonSchema(tool as any) as Record<string, unknown>
    }))
}

/** The JSON Schema an answer must match, with its name, where the call asks for an object. @internal */
export const formatOf = (options: LanguageModel.ProviderOptions) =>
  options.responseFormat.type === "json"
    ? {
      name: options.responseFormat.objectName,
      schema: Tool.getJsonSchemaFromSchema(options.responseFormat.schema as any) as Record<string, unknown>
    }
    : undefined

/** The usage part of an answer from its counts. @internal */
export const usage = (input: number | undefined, output: number | undefined) => ({
  inputTokens: { uncached: undefined, total: input, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: output, text: undefined, reasoning: undefined }
})
