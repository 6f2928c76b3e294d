/**
 * OpenAI Chat Completions, `POST /v1/chat/completions`, as opencode and the `openai` SDK speak it:
 * a `chat.completion` whole, `chat.completion.chunk` data lines streamed and `data: [DONE]` last.
 */
import type * as Response from "effect/ai/Response"

import { read, usageAsked } from "./chatRead.js"
import type { Answered, Dialect, Failed, Frame, StreamWriter } from "./dialect.js"
import * as o from "./openAi.js"

const finishOf = (reason: Response.FinishReason, called: boolean): string => {
  switch (reason) {
    case "length":
      return "length"
    case "content-filter":
      return "content_filter"
    case "tool-calls":
      return "tool_calls"
    case "stop":
      return "stop"
    default:
      return called ? "tool_calls" : "stop"
  }
}

const usageBody = (usage: o.Usage) => ({
  prompt_tokens: usage.input,
  completion_tokens: usage.output,
  total_tokens: usage.input + usage.output,
  ...(usage.cached === undefined ? {} : { prompt_tokens_details: { cached_tokens: usage.cached } }),
  ...(usage.reasoning === undefined ? {} : { completion_tokens_details: { reasoning_tokens: usage.reasoning } })
})

const whole = (parts: ReadonlyArray<Response.Part<any>>, answered: Answered) => {
  const answer = o.gather(parts)
  return {
    id: answered.id,
    object: "chat.completion",
    created: answered.created,
    model: answered.model,
    choices: [{
      index: 0,
      message: {
        role: "assistant",
        content: answer.text === "" && answer.calls.length > 0 ? null : answer.text,
        refusal: null,
        ...(answer.reasoning === "" ? {} : { reasoning_content: answer.reasoning }),
        ...(answer.calls.length === 0 ? {} : {
          tool_calls: answer.calls.map((call) => ({
            id: call.id,
            type: "function",
            function: { name: call.name, arguments: call.arguments }
          }))
        })
      },
      logprobs: null,
      finish_reason: finishOf(answer.reason, answer.calls.length > 0)
    }],
    usage: usageBody(answer.usage)
  }
}

/**
 * The chunks of one streamed answer. `usage` is whether the client asked for the usage chunk
 * (`stream_options.include_usage`): it comes after the finish chunk, with no choices, as OpenAI's.
 */
export const writer = (answered: Answered, usage: boolean): StreamWriter => {
  let started = false
  const calls = new Map<string, number>()
  const chunk = (choice: Record<string, unknown> | undefined, extra: Record<string, unknown> = {}): Frame => ({
    data: JSON.stringify({
      id: answered.id,
      object: "chat.completion.chunk",
      created: answered.created,
      model: answered.model,
      choices: choice === undefined ? [] : [{ index: 0, logprobs: null, finish_reason: null, ...choice }],
      ...extra
    })
  })
  const delta = (d: Record<string, unknown>): Frame => chunk({ delta: d })
  const toolDelta = (index: number, call: Record<string, unknown>) => delta({ tool_calls: [{ index, ...call }] })
  const open = (id: string, name: string): Frame => {
    const index = calls.size
    calls.set(id, index)
    return toolDelta(index, { id, type: "function", function: { name, arguments: "" } })
  }
  const frames = (part: Response.StreamPart<any>): Array<Frame> => {
    switch (part.type) {
      case "text-delta":
        return part.delta === "" ? [] : [delta({ content: part.delta })]
      case "reasoning-delta":
        return part.delta === "" ? [] : [delta({ reasoning_content: part.delta })]
      case "tool-params-start":
        return part.providerExecuted || calls.has(part.id) ? [] : [open(part.id, part.name)]
      case "tool-params-delta": {
        const index = calls.get(part.id)
        return index === undefined || part.delta === ""
          ? []
          : [toolDelta(index, { function: { arguments: part.delta } })]
      }
      case "tool-call": {
        if (part.providerExecuted || calls.has(part.id)) return []
        const call = o.callOf(part)
        return [open(call.id, call.name), toolDelta(calls.get(call.id)!, { function: { arguments: call.arguments } })]
      }
      case "finish": {
        const finish = chunk({ delta: {}, finish_reason: finishOf(part.reason, calls.size > 0) })
        return usage ? [finish, chunk(undefined, { usage: usageBody(o.usageOf(part)) })] : [finish]
      }
      default:
        return []
    }
  }
  return {
    part: (part) => {
      const out = frames(part)
      if (started) return out
      started = true
      return [delta({ role: "assistant", content: "" }), ...out]
    },
    end: () => [{ data: "[DONE]" }],
    // The `openai` SDK throws an APIError for a data line with an `error` member, as OpenAI writes
    // one; no `[DONE]` after it, so no client takes the answer so far for a whole one.
    failed: (failed: Failed) => [{ data: JSON.stringify(o.errorBody(failed)) }]
  }
}

/**
 * OpenAI Chat Completions. Its stream writer sends the usage chunk only when the call asked for it
 * (the reader remembers that by the call's prompt).
 */
export const chat: Dialect = {
  name: "openai-chat",
  family: "openai",
  read,
  whole,
  stream: (answered, call) => writer(answered, usageAsked.has(call.prompt)),
  error: o.errorBody
}
