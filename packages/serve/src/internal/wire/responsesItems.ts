/**
 * The Responses wire's objects: the `response` (whole, and in its lifecycle events) and its output
 * items (message, reasoning, function call, custom tool call), as OpenAI documents them.
 */
import type * as Response from "effect/ai/Response"

import type { Answered } from "./dialect.js"
import type * as o from "./openAi.js"

export type Item = Record<string, unknown>

export const usageBody = (usage: o.Usage) => ({
  input_tokens: usage.input,
  input_tokens_details: { cached_tokens: usage.cached ?? 0 },
  output_tokens: usage.output,
  output_tokens_details: { reasoning_tokens: usage.reasoning ?? 0 },
  total_tokens: usage.input + usage.output
})

/** Length and content filter end a response `incomplete`, as OpenAI's do. */
export const incompleteOf = (reason: Response.FinishReason): string | undefined =>
  reason === "length" ? "max_output_tokens" : reason === "content-filter" ? "content_filter" : undefined

export const responseOf = (answered: Answered, fields: {
  readonly status: string
  readonly output: ReadonlyArray<Item>
  readonly usage?: o.Usage | undefined
  readonly incomplete?: string | undefined
  readonly error?: { readonly code: string; readonly message: string } | undefined
}) => ({
  id: answered.id,
  object: "response",
  created_at: answered.created,
  status: fields.status,
  error: fields.error ?? null,
  incomplete_details: fields.incomplete === undefined ? null : { reason: fields.incomplete },
  instructions: null,
  max_output_tokens: null,
  model: answered.model,
  output: fields.output,
  parallel_tool_calls: true,
  previous_response_id: null,
  reasoning: { effort: null, summary: null },
  store: false,
  temperature: null,
  text: { format: { type: "text" } },
  tool_choice: "auto",
  tools: [],
  top_p: null,
  truncation: "disabled",
  usage: fields.usage === undefined ? null : usageBody(fields.usage),
  metadata: {}
})

export const message = (id: string, text: string, status: string): Item => ({
  type: "message",
  id,
  status,
  role: "assistant",
  content: status === "in_progress" ? [] : [{ type: "output_text", text, annotations: [], logprobs: [] }]
})

export const reasoningItem = (id: string, text: string): Item => ({
  type: "reasoning",
  id,
  summary: text === "" ? [] : [{ type: "summary_text", text }]
})

export const functionCall = (id: string, call: o.Called, status: string): Item => ({
  type: "function_call",
  id,
  call_id: call.id,
  name: call.name,
  arguments: call.arguments,
  status
})

/** A call of a custom tool: its input is the free text the tool takes. */
export const customToolCall = (
  id: string,
  call: { readonly id: string; readonly name: string },
  input: string,
  status: string
): Item => ({
  type: "custom_tool_call",
  id,
  call_id: call.id,
  name: call.name,
  input,
  status
})

export const statusOf = (reason: Response.FinishReason) =>
  incompleteOf(reason) === undefined ? "completed" : "incomplete"
