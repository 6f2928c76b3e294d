/**
 * What the Anthropic dialect writes of an answer's parts, shared by the whole and the streamed
 * answer: a reasoning part's block, the stop reason, the usage, the error body.
 *
 * Reasoning made by another family (an OpenAI place's summary) is written as a thinking block whose
 * signature is `fallback:<family>:`: the client shows it and echoes it back, and the reader knows it
 * for the gateway's own, so it is never sent to Anthropic as if Anthropic had signed it.
 */
import type * as Response from "effect/ai/Response"

import type { Failed } from "./dialect.js"

type Metadata = Readonly<Record<string, unknown>> | undefined

const field = (metadata: Metadata, vendor: string, key: string): string | undefined => {
  const value = (metadata?.[vendor] as Record<string, unknown> | undefined)?.[key]
  return typeof value === "string" ? value : undefined
}

/** What a reasoning part's metadata says of its block: Anthropic's signature or redacted data, its family. */
export interface Signed {
  readonly signature?: string | undefined
  readonly redactedData?: string | undefined
  readonly family?: string | undefined
}

export const signedOf = (metadata: Metadata): Signed => ({
  signature: field(metadata, "anthropic", "signature"),
  redactedData: field(metadata, "anthropic", "redactedData"),
  family: field(metadata, "fallback", "family")
})

/** Later metadata (a signature that comes with a block's end) over earlier. */
export const merge = (earlier: Signed, later: Signed): Signed => ({
  signature: later.signature ?? earlier.signature,
  redactedData: later.redactedData ?? earlier.redactedData,
  family: later.family ?? earlier.family
})

/**
 * The signature a thinking block is written with: Anthropic's own where the reasoning is Anthropic's
 * and signed, else `fallback:<family>:` (`unknown` where no family was marked).
 */
export const signatureOf = (signed: Signed): string =>
  signed.signature !== undefined && (signed.family === undefined || signed.family === "anthropic")
    ? signed.signature
    : `fallback:${signed.family ?? "unknown"}:`

export type StopReason = "end_turn" | "max_tokens" | "tool_use" | "stop_sequence" | "refusal" | "pause_turn"

/**
 * Anthropic's stop reason for a finish reason. A finish that says `stop` after tool calls were written
 * is `tool_use` (an OpenAI place may say either), since clients run tools on `tool_use`.
 */
export const stopOf = (reason: Response.FinishReason | undefined, called: boolean): StopReason => {
  switch (reason) {
    case "length":
      return "max_tokens"
    case "tool-calls":
      return "tool_use"
    case "content-filter":
      return "refusal"
    case "pause":
      return "pause_turn"
    default:
      return called ? "tool_use" : "end_turn"
  }
}

/**
 * Anthropic's usage of a finish part: `input_tokens` counts what was neither read from nor written
 * to the cache, beside them where known.
 */
export const usageOf = (finish: Response.FinishPart | undefined) => {
  const input = finish?.usage.inputTokens
  const cacheRead = input?.cacheRead
  const cacheWrite = input?.cacheWrite
  const uncached = input?.uncached ??
    (input?.total === undefined ? 0 : Math.max(0, input.total - (cacheRead ?? 0) - (cacheWrite ?? 0)))
  return {
    input_tokens: uncached,
    output_tokens: finish?.usage.outputTokens.total ?? 0,
    ...(cacheRead === undefined ? {} : { cache_read_input_tokens: cacheRead }),
    ...(cacheWrite === undefined ? {} : { cache_creation_input_tokens: cacheWrite })
  }
}

const kinds: Record<Failed["kind"], string> = {
  invalid_request: "invalid_request_error",
  authentication: "authentication_error",
  permission: "permission_error",
  not_found: "not_found_error",
  request_too_large: "request_too_large",
  rate_limit: "rate_limit_error",
  overloaded: "overloaded_error",
  // Anthropic's documented error types have no timeout of their own: a 504 is an api_error
  timeout: "api_error",
  api_error: "api_error"
}

/** Anthropic's error body (`{ type: "error", error: { type, message } }`), whole or as a stream's `error` event. */
export const errorOf = (failed: Failed) => ({
  type: "error",
  error: { type: kinds[failed.kind], message: failed.message }
})
