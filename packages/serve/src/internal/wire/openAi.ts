/**
 * What OpenAI's two wires (Chat Completions, Responses) share: reading a JSON body field by field
 * into an {@link Invalid} naming the field, tools and tool choice, reasoning effort as a thinking
 * budget, the error body, and an answer's parts gathered for a whole answer.
 */
import type * as Generation from "@fallback/ai/Generation"
import type * as LanguageModel from "effect/ai/LanguageModel"
import type * as Response from "effect/ai/Response"
import * as Result from "effect/Result"

import type { Call, Failed, ToolDefinition } from "./dialect.js"
import { Invalid } from "./dialect.js"

export type Json = Record<string, unknown>

/** The mark on a reasoning part an OpenAI client sent: only OpenAI places are sent it back. */
export const family = { fallback: { family: "openai" } } as const

/** Stops reading: the body is not what the wire says, at `param`. */
export const invalid = (message: string, param?: string): never => {
  throw new Invalid({ message, param })
}

/** Runs a reader that stops with {@link invalid}, as a `Result`. */
export const reading = (read: (body: Json) => Call) => (body: unknown): Result.Result<Call, Invalid> => {
  try {
    return Result.succeed(read(object(body, "body")))
  } catch (error) {
    if (error instanceof Invalid) return Result.fail(error)
    throw error
  }
}

export const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value)

export const object = (value: unknown, param: string): Json =>
  isObject(value) ? value : invalid(`${param} must be an object`, param)

export const array = (value: unknown, param: string): ReadonlyArray<unknown> =>
  Array.isArray(value) ? value : invalid(`${param} must be an array`, param)

export const string = (value: unknown, param: string): string =>
  typeof value === "string" ? value : invalid(`${param} must be a string`, param)

export const optional = <A>(value: unknown, read: (value: unknown) => A): A | undefined =>
  value === undefined || value === null ? undefined : read(value)

export const number = (value: unknown, param: string): number | undefined =>
  optional(value, (v) => typeof v === "number" && Number.isFinite(v) ? v : invalid(`${param} must be a number`, param))

export const boolean = (value: unknown, param: string): boolean =>
  optional(value, (v) => typeof v === "boolean" ? v : invalid(`${param} must be true or false`, param)) ?? false

/** `stop`: one sequence or several. */
export const stopOf = (value: unknown, param: string): ReadonlyArray<string> | undefined =>
  optional(value, (v) =>
    typeof v === "string"
      ? [v]
      : array(v, param).map((s, i) => string(s, `${param}[${i}]`)))

/** A tool call's arguments, a JSON text of an object; empty means none. */
export const argumentsOf = (text: unknown, param: string): unknown => {
  const raw = string(text, param)
  if (raw.trim() === "") return {}
  try {
    return JSON.parse(raw)
  } catch {
    return invalid(`${param} is not valid JSON: send the tool call's arguments as the model wrote them`, param)
  }
}

/** A function tool's definition, wherever the wire keeps its name, description and parameters. */
export const toolOf = (tool: Json, param: string): ToolDefinition => ({
  name: string(tool.name, `${param}.name`),
  description: optional(tool.description, (d) => string(d, `${param}.description`)),
  parameters: optional(tool.parameters, (p) => object(p, `${param}.parameters`)) ?? { type: "object", properties: {} }
})

/** `tool_choice`, given how the wire names one tool (`named`: its name, or undefined if it is not one). */
export const toolChoiceOf = (
  value: unknown,
  tools: ReadonlyArray<ToolDefinition>,
  named: (choice: Json) => string | undefined
): LanguageModel.ToolChoice<string> => {
  if (value === undefined || value === null) return "auto"
  if (value === "auto" || value === "none" || value === "required") return value
  const name = isObject(value) ? named(value) : undefined
  if (name === undefined) return invalid("tool_choice must be auto, none, required or one function", "tool_choice")
  if (!tools.some((tool) => tool.name === name)) {
    return invalid(`tool_choice names the function ${name}, which is not among tools`, "tool_choice")
  }
  return { tool: name }
}

/**
 * A reasoning effort as a thinking budget in tokens: `minimal` Anthropic's least (1,024), then
 * Claude Code's own three rungs (`low` 4,000 "think", `medium` 10,000 "think hard", `high` and
 * `xhigh` 31,999 "ultrathink"); `none` asks for no thinking.
 */
export const budgets: Record<string, number | undefined> = {
  none: undefined,
  minimal: 1024,
  low: 4000,
  medium: 10000,
  high: 31999,
  xhigh: 31999
}

export const thinkingOf = (effort: unknown, param: string): Generation.Options["thinking"] => {
  if (effort === undefined || effort === null) return undefined
  if (typeof effort !== "string" || !(effort in budgets)) {
    return invalid(`${param} must be one of ${Object.keys(budgets).join(", ")}`, param)
  }
  const budget = budgets[effort]
  return budget === undefined ? undefined : { budgetTokens: budget }
}

/** Drops the unset options, so a Call says only what the client asked. */
export const generationOf = (options: Generation.Options): Generation.Options =>
  Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as Generation.Options

/** A failure's `type` and `code` in OpenAI's words (what api.openai.com answers with each status). */
export const kinds: Record<Failed["kind"], { readonly type: string; readonly code: string | null }> = {
  invalid_request: { type: "invalid_request_error", code: null },
  authentication: { type: "invalid_request_error", code: "invalid_api_key" },
  permission: { type: "invalid_request_error", code: "permission_denied" },
  not_found: { type: "invalid_request_error", code: "model_not_found" },
  request_too_large: { type: "invalid_request_error", code: "request_too_large" },
  rate_limit: { type: "requests", code: "rate_limit_exceeded" },
  overloaded: { type: "server_error", code: "server_is_overloaded" },
  timeout: { type: "server_error", code: "timeout" },
  api_error: { type: "server_error", code: "server_error" }
}

/** The message, with the wait OpenAI's own rate-limit messages end with (Codex reads it to back off). */
export const messageOf = (failed: Failed): string =>
  failed.retryAfter === undefined ? failed.message : `${failed.message} Please try again in ${failed.retryAfter}s.`

/**
 * `{ error: { message, type, param, code } }`, as OpenAI sends every error; `param` where the
 * failure names the field (a request the wire could not read).
 */
export const errorBody = (failed: Failed) => ({
  error: { message: messageOf(failed), ...kinds[failed.kind], param: (failed as { param?: string }).param ?? null }
})

export interface Usage {
  readonly input: number
  readonly output: number
  readonly cached?: number | undefined
  readonly reasoning?: number | undefined
}

export const usageOf = (finish: Response.FinishPart | undefined): Usage => ({
  input: finish?.usage.inputTokens.total ?? 0,
  output: finish?.usage.outputTokens.total ?? 0,
  cached: finish?.usage.inputTokens.cacheRead,
  reasoning: finish?.usage.outputTokens.reasoning
})

/** A tool call of an answer, its arguments as the JSON text both wires carry. */
export interface Called {
  readonly id: string
  readonly name: string
  readonly arguments: string
}

/** A whole answer's parts, gathered: its text, its reasoning, its tool calls, its finish. */
export interface Gathered {
  readonly text: string
  readonly reasoning: string
  readonly calls: ReadonlyArray<Called>
  readonly reason: Response.FinishReason
  readonly usage: Usage
}

export const gather = (parts: ReadonlyArray<Response.Part<any>>): Gathered => {
  let text = ""
  let reasoning = ""
  const calls: Array<Called> = []
  let finish: Response.FinishPart | undefined
  for (const part of parts) {
    if (part.type === "text") text += part.text
    else if (part.type === "reasoning") reasoning += part.text
    else if (part.type === "tool-call" && !part.providerExecuted) calls.push(callOf(part))
    else if (part.type === "finish") finish = part
  }
  return { text, reasoning, calls, reason: finish?.reason ?? "unknown", usage: usageOf(finish) }
}

export const callOf = (part: Response.ToolCallPart<string, unknown>): Called => ({
  id: part.id,
  name: part.name,
  arguments: JSON.stringify(part.params ?? {})
})

/** The id after its wire's prefix (`resp_abc` → `abc`), to make the ids of the answer's items. */
export const suffixOf = (id: string): string => id.slice(id.indexOf("_") + 1) || id
