import type * as LanguageModel from "effect/ai/LanguageModel"
import type * as Prompt from "effect/ai/Prompt"
import type * as Response from "effect/ai/Response"
import * as Tool from "effect/ai/Tool"

import type * as Generation from "../../Generation.js"

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
  /** Every header a call is sent with: the key's, over the ones `given` (the model's own). */
  readonly headers: (key: string | undefined, given: Readonly<Record<string, string>>) => Record<string, string>
  /** A call's body, with the generation options of the fiber that made it. */
  readonly body: (
    options: LanguageModel.ProviderOptions,
    model: Model,
    stream: boolean,
    generation: Generation.Options
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

/** An event's data as the JSON object it holds, or nothing (a keep-alive, `[DONE]`, a broken line). @internal */
export const parse = (data: string): Record<string, any> | undefined => {
  let value: unknown
  try {
    value = JSON.parse(data)
  } catch {
    return undefined
  }
  return typeof value === "object" && value !== null && !Array.isArray(value) ? value as Record<string, any> : undefined
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

/**
 * The tools a call offers, in the order given, each as `write` makes it of the tool's name (with
 * its description, where it has one) and its JSON Schema.
 *
 * @internal
 */
export const toolsOf = <A>(
  options: LanguageModel.ProviderOptions,
  write: (named: { readonly name: string; readonly description?: string }, schema: Record<string, unknown>) => A
): Array<A> => {
  const choice = options.toolChoice
  const only = typeof choice === "object" && "oneOf" in choice ? new Set<string>(choice.oneOf) : undefined
  return options.tools
    .filter((tool) => !Tool.isProviderDefined(tool) && (only === undefined || only.has(tool.name)))
    .map((tool) => {
      const description = Tool.getDescription(tool as any)
      return write(
        description === undefined ? { name: tool.name } : { name: tool.name, description },
        Tool.getJsonSchema(tool as any) as Record<string, unknown>
      )
    })
}

/** The JSON Schema an answer must match, with its name, where the call asks for an object. @internal */
export const formatOf = (options: LanguageModel.ProviderOptions) =>
  options.responseFormat.type === "json"
    ? {
      name: options.responseFormat.objectName,
      schema: Tool.getJsonSchemaFromSchema(options.responseFormat.schema as any) as Record<string, unknown>
    }
    : undefined

/** An answer's first part: its id and the model that gave it. @internal */
export const metadata = (id: unknown, modelId: unknown) =>
  ({ type: "response-metadata", id, modelId, timestamp: new Date().toISOString() }) as
    & Response.StreamPartEncoded
    & Response.PartEncoded

/** An answer's last part: why it ended, and the tokens it took in and gave. @internal */
export const finish = (reason: Response.FinishReason, input: number | undefined, output: number | undefined) =>
  ({
    type: "finish",
    reason,
    usage: {
      inputTokens: { uncached: undefined, total: input, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: output, text: undefined, reasoning: undefined }
    }
  }) as Response.StreamPartEncoded & Response.PartEncoded

/** A call of a tool. @internal */
export const toolCall = (id: unknown, name: unknown, params: unknown) =>
  ({ type: "tool-call", id, name, params }) as Response.StreamPartEncoded & Response.PartEncoded

/** What a stream ends a tool's arguments with: their end, then the call, its arguments read from their JSON text. @internal */
export const called = (id: string, name: unknown, args: string): Array<Response.StreamPartEncoded> => [
  { type: "tool-params-end", id },
  toolCall(id, name, parseArgs(args))
]

/** How an OpenAI wire's reasoning parts are marked (the board's `{ fallback: { family } }`). @internal */
export const openAiFamily = { fallback: { family: "openai" } } as const
