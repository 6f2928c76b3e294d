/**
 * The one representation every wire is read into and written from: a client's call as an
 * `effect/ai` `Prompt` with its tools and generation options, and an answer as `effect/ai`
 * response parts. Each wire the gateway speaks is one {@link Dialect}: a reader of its requests,
 * and writers of its whole answers, its streamed answers and its errors. The upstream side (a
 * place's own wire) is @fallback/ai's `AnthropicLanguageModel` / `OpenAiLanguageModel`, which
 * read and write the same representation.
 */
import type * as Generation from "@fallback/ai/Generation"
import type * as LanguageModel from "effect/ai/LanguageModel"
import type * as Prompt from "effect/ai/Prompt"
import type * as Response from "effect/ai/Response"
import * as Data from "effect/Data"
import type * as Result from "effect/Result"

/** The wires the gateway speaks. */
export type Name = "anthropic-messages" | "openai-chat" | "openai-responses"

/**
 * The model family that made a reasoning part: only that family is ever sent it back (Anthropic's
 * thinking blocks carry a signature only Anthropic checks). Kept on a reasoning part's options /
 * metadata as `{ fallback: { family } }` beside the vendor's own (`{ anthropic: { signature } }`).
 */
export type Family = "anthropic" | "openai"

/** A tool the client defines: its name, what it is for, and its parameters as JSON Schema. */
export interface ToolDefinition {
  readonly name: string
  readonly description?: string | undefined
  readonly parameters: Record<string, unknown>
  /**
   * A tool whose input is free text, not JSON (a Responses `custom` tool, e.g. Codex's `exec` and
   * `apply_patch`): offered to the model as a function of `{ input: string }`, and its calls written
   * back to the client as the wire's custom tool calls with that text.
   */
  readonly custom?: boolean | undefined
}

/** A client's call, read from its wire. */
export interface Call {
  readonly wire: Name
  /** The model as the client named it: a place, or an alias the config maps to one. */
  readonly model: string
  readonly prompt: Prompt.Prompt
  readonly tools: ReadonlyArray<ToolDefinition>
  readonly toolChoice: LanguageModel.ToolChoice<string>
  readonly stream: boolean
  readonly generation: Generation.Options
  /**
   * What in the body names the conversation, where something does: OpenAI `prompt_cache_key`,
   * Responses `previous_response_id`, Anthropic `metadata.user_id`'s session. The gateway falls
   * back to the client's session header, then to a hash of the first messages.
   */
  readonly conversation?: string | undefined
}

/** A request body the wire cannot read: 400, in the wire's error shape, `param` naming the field. */
export class Invalid extends Data.TaggedError("Invalid")<{
  readonly message: string
  readonly param?: string | undefined
}> {}

/** Where an answer came from, for its `model` field and its ids. */
export interface Answered {
  /** The answering place, as `Place.format` writes it: the response's `model` field. */
  readonly model: string
  /** The response's id (`msg_…`, `chatcmpl-…`, `resp_…`), made by the gateway. */
  readonly id: string
  /** When the answer began, epoch seconds (Chat `created`, Responses `created_at`). */
  readonly created: number
}

/**
 * What a failure is to a client, in the terms every wire has: its HTTP status, its kind (each
 * dialect names it in its own words: Anthropic `rate_limit_error`, OpenAI `rate_limit_exceeded`),
 * a message a person can act on (masked), and seconds to wait where known (`Retry-After`).
 */
export interface Failed {
  readonly status: number
  readonly kind:
    | "invalid_request"
    | "authentication"
    | "permission"
    | "not_found"
    | "request_too_large"
    | "rate_limit"
    | "overloaded"
    | "timeout"
    | "api_error"
  readonly message: string
  readonly retryAfter?: number | undefined
  /** The request field a 400 names, where one does (from {@link Invalid}). */
  readonly param?: string | undefined
}

/** One server-sent event: its `event:` line where the wire names events, and its data. */
export interface Frame {
  readonly event?: string | undefined
  readonly data: string
}

/**
 * Writes one streamed answer. `part` is called with each part in order and keeps the wire's order
 * (Anthropic: `message_start` before any block, one block open at a time; Chat: the role first;
 * Responses: `response.created` first, each item added before its deltas); `end` closes a whole
 * answer after its finish part; `failed` closes one that failed after the commit point with the
 * wire's in-stream error (never a silent end).
 */
export interface StreamWriter {
  readonly part: (part: Response.StreamPart<any>) => ReadonlyArray<Frame>
  readonly end: () => ReadonlyArray<Frame>
  readonly failed: (failed: Failed) => ReadonlyArray<Frame>
}

/** One wire: its reader, and its writers. */
export interface Dialect {
  readonly name: Name
  /** The family whose models speak this wire natively (a caller's key is passed through only to it). */
  readonly family: Family
  readonly read: (body: unknown) => Result.Result<Call, Invalid>
  /** A whole answer's body, from the answer's parts (a `finish` part last, with the usage), for the call it answers where known (Responses writes a custom tool's call as custom_tool_call). */
  readonly whole: (parts: ReadonlyArray<Response.Part<any>>, answered: Answered, call?: Call) => unknown
  /** A streamed answer's writer, for the call it answers (Chat sends a usage chunk only when the call asked). */
  readonly stream: (answered: Answered, call: Call) => StreamWriter
  /** A whole error response's body (the status and `Retry-After` are the caller's to set). */
  readonly error: (failed: Failed) => unknown
}
