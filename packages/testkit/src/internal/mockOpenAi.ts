/**
 * OpenAI as the mock provider speaks it: Chat Completions (`POST /v1/chat/completions`, plain or
 * streamed) and Responses (`POST /v1/responses`, plain or streamed), text or a tool call, with
 * errors as
 * `{ error: { message, type, param, code } }`.
 */
import type { Asked, Call, Dialect, ErrorKind, Reply } from "./mockWire.js"
import { badGateway, deltas, event, json, maskKey, outputTokens, sse } from "./mockWire.js"

const limits = (seconds: number): Record<string, string> => ({
  "x-ratelimit-limit-requests": "500",
  "x-ratelimit-remaining-requests": "0",
  "x-ratelimit-reset-requests": `${seconds}s`,
  "x-ratelimit-reset-tokens": `${seconds}s`
})

const failed = (
  status: number,
  type: string,
  code: string | null,
  message: string,
  asked: Asked,
  headers: Record<string, string> = {}
): Reply =>
  json(status, { error: { message, type, param: null, code } }, { "x-request-id": `req_${asked.id}`, ...headers })

const serverError = "The server had an error while processing your request. Sorry about that!"

const errors: { readonly [F in ErrorKind]: (asked: Asked) => Reply } = {
  "rate-limit": (asked) =>
    failed(
      429,
      "requests",
      "rate_limit_exceeded",
      `Rate limit reached for ${asked.model} on requests per min (RPM): Limit 500, Used 500, Requested 1. ` +
        `Please try again in ${asked.retryAfter}s.`,
      asked,
      { "retry-after": String(asked.retryAfter), ...limits(asked.retryAfter) }
    ),
  "rate-limit-bare": (asked) =>
    failed(
      429,
      "requests",
      "rate_limit_exceeded",
      `Rate limit reached for ${asked.model} on requests per min (RPM): Limit 500, Used 500, Requested 1.`,
      asked
    ),
  quota: (asked) =>
    failed(
      429,
      "insufficient_quota",
      "insufficient_quota",
      "You exceeded your current quota, please check your plan and billing details.",
      asked,
      limits(asked.quotaReset)
    ),
  overloaded: (asked) =>
    failed(503, "server_error", null, "The engine is currently overloaded, please try again later.", asked),
  "server-error": (asked) => failed(500, "server_error", null, serverError, asked),
  "bad-gateway": () => badGateway,
  unauthorized: (asked) =>
    failed(
      401,
      "invalid_request_error",
      "invalid_api_key",
      `Incorrect API key provided: ${maskKey(asked.key)}. You can find your API key at ` +
        "https://platform.openai.com/account/api-keys.",
      asked
    ),
  forbidden: (asked) =>
    failed(
      403,
      "request_forbidden",
      "unsupported_country_region_territory",
      "Country, region, or territory not supported",
      asked
    ),
  "model-not-found": (asked) =>
    failed(
      404,
      "invalid_request_error",
      "model_not_found",
      `The model \`${asked.model}\` does not exist or you do not have access to it.`,
      asked
    ),
  "context-too-long": (asked) =>
    failed(
      400,
      "invalid_request_error",
      "context_length_exceeded",
      `This model's maximum context length is 128000 tokens. However, your messages resulted in ` +
        `${Math.max(asked.inputTokens, 128_001)} tokens. Please reduce the length of the messages.`,
      asked
    ),
  "content-policy": (asked) =>
    failed(
      400,
      "invalid_request_error",
      "content_policy_violation",
      "Your request was rejected as a result of our safety system. Your prompt may contain text that is not " +
        "allowed by our safety system.",
      asked
    ),
  prefill: (asked) =>
    failed(
      400,
      "invalid_request_error",
      null,
      "This model does not support assistant message prefill. The conversation must end with a user message.",
      asked
    )
}

const chunk = (asked: Asked, delta: Record<string, unknown>, finish: string | null): string =>
  event({
    id: `chatcmpl-${asked.id}`,
    object: "chat.completion.chunk",
    created: Math.floor(Date.now() / 1000),
    model: asked.model,
    choices: [{ index: 0, delta, finish_reason: finish }]
  })

const usage = (asked: Asked, text = asked.text) => ({
  prompt_tokens: asked.inputTokens,
  completion_tokens: outputTokens(text),
  total_tokens: asked.inputTokens + outputTokens(text)
})

const usageChunk = (asked: Asked, text?: string): string =>
  event({
    id: `chatcmpl-${asked.id}`,
    object: "chat.completion.chunk",
    created: Math.floor(Date.now() / 1000),
    model: asked.model,
    choices: [],
    usage: usage(asked, text)
  })

const toolCall = (asked: Asked, call: Call) => ({
  id: `call_${asked.id}`,
  type: "function",
  function: { name: call.name, arguments: JSON.stringify(call.input) }
})

/** A whole Chat Completions answer: its one choice's message, why it finished, and its usage. */
const completion = (asked: Asked, message: object, finish: string, text?: string): Reply =>
  json(200, {
    id: `chatcmpl-${asked.id}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: asked.model,
    choices: [{ index: 0, message, finish_reason: finish }],
    usage: usage(asked, text)
  })

/** A Chat Completions answer that calls a tool. */
const chatToolAnswer = (asked: Asked, call: Call): Reply =>
  asked.stream
    ? sse([
      chunk(asked, { role: "assistant", content: null, tool_calls: [{ index: 0, ...toolCall(asked, call) }] }, null),
      chunk(asked, {}, "tool_calls"),
      event("[DONE]")
    ])
    : completion(asked, { role: "assistant", content: null, tool_calls: [toolCall(asked, call)] }, "tool_calls")

/** @internal */
export const chat: Dialect = {
  answer: (asked) =>
    asked.call !== undefined
      ? chatToolAnswer(asked, asked.call)
      : asked.stream
      ? sse([
        chunk(asked, { role: "assistant", content: "" }, null),
        ...deltas(asked.text).map((text) => chunk(asked, { content: text }, null)),
        chunk(asked, {}, "stop"),
        usageChunk(asked),
        event("[DONE]")
      ])
      : completion(asked, { role: "assistant", content: asked.text }, "stop"),
  error: (fault, asked) => errors[fault](asked),
  refusal: (asked) =>
    asked.stream
      ? sse([
        chunk(asked, { role: "assistant", content: "" }, null),
        chunk(asked, {}, "content_filter"),
        usageChunk(asked, ""),
        event("[DONE]")
      ])
      : completion(asked, { role: "assistant", content: null }, "content_filter", ""),
  sentinel: "data: [DONE]",
  opening: (asked) =>
    sse([
      chunk(asked, { role: "assistant", content: "" }, null),
      chunk(asked, { content: deltas(asked.text)[0] ?? "" }, null)
    ]),
  streamError: (asked) =>
    sse([
      chunk(asked, { role: "assistant", content: "" }, null),
      event({
        error: {
          message: serverError,
          type: "server_error",
          param: null,
          code: null
        }
      })
    ])
}

const response = (
  asked: Asked,
  status: string,
  output: ReadonlyArray<unknown>,
  extra: Record<string, unknown> = {}
) => ({
  id: `resp_${asked.id}`,
  object: "response",
  created_at: Math.floor(Date.now() / 1000),
  status,
  error: null,
  incomplete_details: null,
  instructions: null,
  model: asked.model,
  output,
  parallel_tool_calls: true,
  tool_choice: "auto",
  tools: [],
  metadata: {},
  temperature: 1,
  top_p: 1,
  ...extra
})

const message = (asked: Asked, text: string, status: string) => ({
  id: `msg_${asked.id}`,
  type: "message",
  status,
  role: "assistant",
  content: text === "" ? [] : [{ type: "output_text", text, annotations: [] }]
})

const sequenced = (events: ReadonlyArray<Record<string, unknown> & { readonly type: string }>): ReadonlyArray<string> =>
  events.map((body, sequence_number) => event({ ...body, sequence_number }, body.type))

const opened = (asked: Asked) => [
  { type: "response.created", response: response(asked, "in_progress", []) },
  { type: "response.in_progress", response: response(asked, "in_progress", []) },
  { type: "response.output_item.added", output_index: 0, item: message(asked, "", "in_progress") },
  {
    type: "response.content_part.added",
    item_id: `msg_${asked.id}`,
    output_index: 0,
    content_index: 0,
    part: { type: "output_text", text: "", annotations: [] }
  }
]

const textDelta = (asked: Asked, delta: string) => ({
  type: "response.output_text.delta",
  item_id: `msg_${asked.id}`,
  output_index: 0,
  content_index: 0,
  delta
})

const usageOf = (asked: Asked, output: number) => ({
  input_tokens: asked.inputTokens,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: output,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: asked.inputTokens + output
})

/** A Responses answer that calls a tool: a `function_call` item, its arguments streamed. */
const responsesToolAnswer = (asked: Asked, call: Call): Reply => {
  const args = JSON.stringify(call.input)
  const item = (status: string, text: string) => ({
    type: "function_call",
    id: `fc_${asked.id}`,
    call_id: `call_${asked.id}`,
    name: call.name,
    arguments: text,
    status
  })
  const completed = response(asked, "completed", [item("completed", args)], {
    usage: usageOf(asked, outputTokens(args))
  })
  return asked.stream
    ? sse(sequenced([
      { type: "response.created", response: response(asked, "in_progress", []) },
      { type: "response.output_item.added", output_index: 0, item: item("in_progress", "") },
      ...deltas(args).map((delta) => ({
        type: "response.function_call_arguments.delta",
        item_id: `fc_${asked.id}`,
        output_index: 0,
        delta
      })),
      { type: "response.function_call_arguments.done", item_id: `fc_${asked.id}`, output_index: 0, arguments: args },
      { type: "response.output_item.done", output_index: 0, item: item("completed", args) },
      { type: "response.completed", response: completed }
    ]))
    : json(200, completed)
}

/** @internal */
export const responses: Dialect = {
  answer: (asked) => {
    if (asked.call !== undefined) return responsesToolAnswer(asked, asked.call)
    const done = message(asked, asked.text, "completed")
    const completed = response(asked, "completed", [done], { usage: usageOf(asked, outputTokens(asked.text)) })
    const events = [
      ...opened(asked),
      ...deltas(asked.text).map((delta) => textDelta(asked, delta)),
      {
        type: "response.output_text.done",
        item_id: `msg_${asked.id}`,
        output_index: 0,
        content_index: 0,
        text: asked.text
      },
      {
        type: "response.content_part.done",
        item_id: `msg_${asked.id}`,
        output_index: 0,
        content_index: 0,
        part: { type: "output_text", text: asked.text, annotations: [] }
      },
      { type: "response.output_item.done", output_index: 0, item: done },
      { type: "response.completed", response: completed }
    ]
    return asked.stream ? sse(sequenced(events)) : json(200, completed)
  },
  error: (fault, asked) => errors[fault](asked),
  refusal: (asked) => {
    const incomplete = response(asked, "incomplete", [], {
      incomplete_details: { reason: "content_filter" },
      usage: usageOf(asked, 0)
    })
    return asked.stream
      ? sse(sequenced([...opened(asked).slice(0, 2), { type: "response.incomplete", response: incomplete }]))
      : json(200, incomplete)
  },
  sentinel: "event: response.completed",
  opening: (asked) => sse(sequenced([...opened(asked), textDelta(asked, deltas(asked.text)[0] ?? "")])),
  streamError: (asked) =>
    sse(sequenced([
      ...opened(asked),
      {
        type: "response.failed",
        response: response(asked, "failed", [], {
          error: {
            code: "server_error",
            message: serverError
          }
        })
      }
    ]))
}
