/**
 * Anthropic Messages as the mock provider speaks it: `POST /v1/messages`, plain or streamed, text
 * a tool call, or thinking then text, and errors as `{ type: "error", error: { type, message }, request_id }`.
 */
import type { Asked, Call, Dialect, ErrorKind, Reply } from "./mockWire.js"
import { badGateway, deltas, event, inSeconds, json, outputTokens, sse } from "./mockWire.js"

const limits = (seconds: number): Record<string, string> => ({
  "anthropic-ratelimit-requests-limit": "50",
  "anthropic-ratelimit-requests-remaining": "0",
  "anthropic-ratelimit-requests-reset": inSeconds(seconds),
  "anthropic-ratelimit-tokens-reset": inSeconds(seconds)
})

const failed = (
  status: number,
  type: string,
  message: string,
  asked: Asked,
  headers: Record<string, string> = {}
): Reply =>
  json(status, { type: "error", error: { type, message }, request_id: `req_${asked.id}` }, {
    "request-id": `req_${asked.id}`,
    ...headers
  })

const errors: { readonly [F in ErrorKind]: (asked: Asked) => Reply } = {
  "rate-limit": (asked) =>
    failed(
      429,
      "rate_limit_error",
      "This request would exceed the rate limit for your organization of 50 requests per minute. " +
        "For details, refer to: https://docs.claude.com/en/api/rate-limits.",
      asked,
      { "retry-after": String(asked.retryAfter), ...limits(asked.retryAfter) }
    ),
  "rate-limit-bare": (asked) =>
    failed(
      429,
      "rate_limit_error",
      "This request would exceed the rate limit for your organization of 50 requests per minute.",
      asked
    ),
  quota: (asked) =>
    failed(
      400,
      "invalid_request_error",
      "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or " +
        "purchase credits.",
      asked,
      limits(asked.quotaReset)
    ),
  overloaded: (asked) => failed(529, "overloaded_error", "Overloaded", asked),
  "server-error": (asked) => failed(500, "api_error", "Internal server error", asked),
  "bad-gateway": () => badGateway,
  unauthorized: (asked) => failed(401, "authentication_error", "invalid x-api-key", asked),
  forbidden: (asked) =>
    failed(403, "permission_error", "Your API key does not have permission to use the specified resource.", asked),
  "model-not-found": (asked) => failed(404, "not_found_error", `model: ${asked.model}`, asked),
  "context-too-long": (asked) =>
    failed(
      400,
      "invalid_request_error",
      `prompt is too long: ${Math.max(asked.inputTokens, 200_001)} tokens > 200000 maximum`,
      asked
    ),
  "content-policy": (asked) =>
    failed(400, "invalid_request_error", "Output blocked by content filtering policy", asked),
  prefill: (asked) =>
    failed(
      400,
      "invalid_request_error",
      "This model does not support assistant message prefill. The conversation must end with a user message.",
      asked
    )
}

const messageStart = (asked: Asked): string =>
  event({
    type: "message_start",
    message: {
      id: `msg_${asked.id}`,
      type: "message",
      role: "assistant",
      model: asked.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: asked.inputTokens, output_tokens: 1 }
    }
  }, "message_start")

const blockStart = (index: number, content_block: unknown): string =>
  event({ type: "content_block_start", index, content_block }, "content_block_start")

const blockDelta = (index: number, delta: unknown): string =>
  event({ type: "content_block_delta", index, delta }, "content_block_delta")

const blockStop = (index: number): string => event({ type: "content_block_stop", index }, "content_block_stop")

const start = (asked: Asked): ReadonlyArray<string> => [
  messageStart(asked),
  blockStart(0, { type: "text", text: "" }),
  event({ type: "ping" }, "ping")
]

const toolStart = (asked: Asked, call: Call): ReadonlyArray<string> => [
  messageStart(asked),
  blockStart(0, { type: "tool_use", id: `toolu_${asked.id}`, name: call.name, input: {} })
]

/** An answer that calls a tool: a `tool_use` block, its input streamed as JSON pieces. */
const toolAnswer = (asked: Asked, call: Call): Reply => {
  const input = JSON.stringify(call.input)
  return asked.stream
    ? sse([
      ...toolStart(asked, call),
      ...deltas(input).map((partial_json) => blockDelta(0, { type: "input_json_delta", partial_json })),
      blockStop(0),
      event({
        type: "message_delta",
        delta: { stop_reason: "tool_use", stop_sequence: null },
        usage: { output_tokens: outputTokens(input) }
      }, "message_delta"),
      event({ type: "message_stop" }, "message_stop")
    ])
    : json(200, {
      id: `msg_${asked.id}`,
      type: "message",
      role: "assistant",
      model: asked.model,
      content: [{ type: "tool_use", id: `toolu_${asked.id}`, name: call.name, input: call.input }],
      stop_reason: "tool_use",
      stop_sequence: null,
      usage: { input_tokens: asked.inputTokens, output_tokens: outputTokens(input) }
    })
}

const delta = (text: string, index = 0): string => blockDelta(index, { type: "text_delta", text })

const ended = (text: string, stop = "end_turn"): ReadonlyArray<string> => [
  event({
    type: "message_delta",
    delta: { stop_reason: stop, stop_sequence: null },
    usage: { output_tokens: outputTokens(text) }
  }, "message_delta"),
  event({ type: "message_stop" }, "message_stop")
]

/** What the API signs a thinking block with (opaque to clients): made up, as the block is. */
const signature = (asked: Asked): string => Buffer.from(`mock thinking signature ${asked.id}`).toString("base64")

/**
 * An answer that thinks first, as extended thinking answers: a `thinking` block (streamed as
 * `thinking_delta` pieces, then its `signature_delta`), then the text in the next block.
 */
const thinkAnswer = (asked: Asked): Reply =>
  asked.stream
    ? sse([
      messageStart(asked),
      blockStart(0, { type: "thinking", thinking: "", signature: "" }),
      event({ type: "ping" }, "ping"),
      ...deltas(asked.thinking).map((thinking) => blockDelta(0, { type: "thinking_delta", thinking })),
      blockDelta(0, { type: "signature_delta", signature: signature(asked) }),
      blockStop(0),
      blockStart(1, { type: "text", text: "" }),
      ...deltas(asked.text).map((text) => delta(text, 1)),
      blockStop(1),
      ...ended(asked.thinking + asked.text)
    ])
    : json(200, {
      id: `msg_${asked.id}`,
      type: "message",
      role: "assistant",
      model: asked.model,
      content: [
        { type: "thinking", thinking: asked.thinking, signature: signature(asked) },
        { type: "text", text: asked.text }
      ],
      stop_reason: "end_turn",
      stop_sequence: null,
      usage: { input_tokens: asked.inputTokens, output_tokens: outputTokens(asked.thinking + asked.text) }
    })

/** @internal */
export const anthropic: Dialect = {
  answer: (asked) =>
    asked.call !== undefined
      ? toolAnswer(asked, asked.call)
      : asked.stream
      ? sse([
        ...start(asked),
        ...deltas(asked.text).map((text) => delta(text)),
        blockStop(0),
        ...ended(asked.text)
      ])
      : json(200, {
        id: `msg_${asked.id}`,
        type: "message",
        role: "assistant",
        model: asked.model,
        content: [{ type: "text", text: asked.text }],
        stop_reason: "end_turn",
        stop_sequence: null,
        usage: { input_tokens: asked.inputTokens, output_tokens: outputTokens(asked.text) }
      }),
  think: (asked) => asked.call !== undefined ? toolAnswer(asked, asked.call) : thinkAnswer(asked),
  error: (fault, asked) => errors[fault](asked),
  refusal: (asked) =>
    asked.stream
      ? sse([messageStart(asked), event({ type: "ping" }, "ping"), ...ended("", "refusal")])
      : json(200, {
        id: `msg_${asked.id}`,
        type: "message",
        role: "assistant",
        model: asked.model,
        content: [],
        stop_reason: "refusal",
        stop_sequence: null,
        usage: { input_tokens: asked.inputTokens, output_tokens: outputTokens("") }
      }),
  sentinel: "event: message_stop",
  opening: (asked) => sse([...start(asked), delta(deltas(asked.text)[0] ?? "")]),
  streamError: (asked) =>
    sse([
      ...start(asked),
      event({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }, "error")
    ])
}
