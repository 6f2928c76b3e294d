/**
 * OpenAI Responses, `POST /v1/responses`, as Codex and the `openai` SDK speak it: a `response`
 * object whole; streamed, `response.created` and `response.in_progress`, then each output item
 * added, its deltas, done — one item open at a time — and `response.completed` (or
 * `response.incomplete`) with the whole response last. A call of one of the call's custom tools is a
 * `custom_tool_call` item carrying the model's `input` text (its input in one delta, at its end).
 */
import type * as Response from "effect/ai/Response"

import type { Answered, Call, Dialect, Failed, Frame, StreamWriter } from "./dialect.js"
import * as o from "./openAi.js"
import { customNames, inputOf } from "./responsesCustom.js"
import type { Item } from "./responsesItems.js"
import {
  customToolCall,
  functionCall,
  incompleteOf,
  message,
  reasoningItem,
  responseOf,
  statusOf
} from "./responsesItems.js"
import { read } from "./responsesRead.js"

/** A whole answer; with the call it answers, its custom tools' calls are custom tool calls. */
const whole = (parts: ReadonlyArray<Response.Part<any>>, answered: Answered, call?: Call) => {
  const answer = o.gather(parts)
  const id = o.suffixOf(answered.id)
  const customs = customNames(call?.tools)
  const output: Array<Item> = [
    ...(answer.reasoning === "" ? [] : [reasoningItem(`rs_${id}_0`, answer.reasoning)]),
    ...(answer.text === "" ? [] : [message(`msg_${id}_0`, answer.text, "completed")]),
    ...answer.calls.map((called, i) =>
      customs.has(called.name)
        ? customToolCall(`ctc_${id}_${i}`, called, inputOf(called.arguments), "completed")
        : functionCall(`fc_${id}_${i}`, called, "completed")
    )
  ]
  return responseOf(answered, {
    status: statusOf(answer.reason),
    output,
    usage: answer.usage,
    incomplete: incompleteOf(answer.reason)
  })
}

/** The item open in the stream: what it is, where it is, what it holds so far. */
interface Open {
  readonly kind: "message" | "reasoning" | "function_call" | "custom_tool_call"
  readonly index: number
  readonly id: string
  readonly call?: { readonly id: string; readonly name: string } | undefined
  /** The text so far; a custom tool call's is the model's arguments, read for their input at the end. */
  text: string
}

const prefixes: Record<Open["kind"], string> = {
  message: "msg",
  reasoning: "rs",
  function_call: "fc",
  custom_tool_call: "ctc"
}

export const writer = (answered: Answered, call?: Call): StreamWriter => {
  const suffix = o.suffixOf(answered.id)
  const customs = customNames(call?.tools)
  const output: Array<Item> = []
  const called = new Set<string>()
  let sequence = 0
  let started = false
  let open: Open | undefined
  const event = (type: string, fields: Record<string, unknown>): Frame => ({
    event: type,
    data: JSON.stringify({ type, sequence_number: sequence++, ...fields })
  })
  const at = (o: Open) => ({ item_id: o.id, output_index: o.index })
  const start = (): Array<Frame> => {
    if (started) return []
    started = true
    const response = responseOf(answered, { status: "in_progress", output: [] })
    return [event("response.created", { response }), event("response.in_progress", { response })]
  }
  const close = (): Array<Frame> => {
    const item = open
    if (item === undefined) return []
    open = undefined
    let done: Item
    const frames: Array<Frame> = []
    if (item.kind === "message") {
      const part = { type: "output_text", text: item.text, annotations: [], logprobs: [] }
      frames.push(
        event("response.output_text.done", { ...at(item), content_index: 0, text: item.text, logprobs: [] }),
        event("response.content_part.done", { ...at(item), content_index: 0, part })
      )
      done = message(item.id, item.text, "completed")
    } else if (item.kind === "reasoning") {
      const part = { type: "summary_text", text: item.text }
      frames.push(
        event("response.reasoning_summary_text.done", { ...at(item), summary_index: 0, text: item.text }),
        event("response.reasoning_summary_part.done", { ...at(item), summary_index: 0, part })
      )
      done = reasoningItem(item.id, item.text)
    } else if (item.kind === "custom_tool_call") {
      const input = inputOf(item.text)
      if (input !== "") frames.push(event("response.custom_tool_call_input.delta", { ...at(item), delta: input }))
      frames.push(event("response.custom_tool_call_input.done", { ...at(item), input }))
      done = customToolCall(item.id, item.call!, input, "completed")
    } else {
      frames.push(event("response.function_call_arguments.done", { ...at(item), arguments: item.text }))
      done = functionCall(item.id, { ...item.call!, arguments: item.text }, "completed")
    }
    output.push(done)
    return [...frames, event("response.output_item.done", { output_index: item.index, item: done })]
  }
  const begin = (kind: Open["kind"], call?: Open["call"]): Array<Frame> => {
    const frames = close()
    const index = output.length
    const item: Open = { kind, index, id: `${prefixes[kind]}_${suffix}_${index}`, call, text: "" }
    open = item
    const added = kind === "message"
      ? message(item.id, "", "in_progress")
      : kind === "reasoning"
      ? reasoningItem(item.id, "")
      : kind === "custom_tool_call"
      ? customToolCall(item.id, call!, "", "in_progress")
      : functionCall(item.id, { ...call!, arguments: "" }, "in_progress")
    frames.push(event("response.output_item.added", { output_index: index, item: added }))
    if (kind === "message") {
      frames.push(event("response.content_part.added", {
        ...at(item),
        content_index: 0,
        part: { type: "output_text", text: "", annotations: [], logprobs: [] }
      }))
    } else if (kind === "reasoning") {
      frames.push(event("response.reasoning_summary_part.added", {
        ...at(item),
        summary_index: 0,
        part: { type: "summary_text", text: "" }
      }))
    }
    return frames
  }
  const kindOf = (name: string) => customs.has(name) ? "custom_tool_call" as const : "function_call" as const
  /** Opens an item of `kind` unless one is open already. */
  const ensure = (kind: "message" | "reasoning"): Array<Frame> => open?.kind === kind ? [] : begin(kind)
  const frames = (part: Response.StreamPart<any>): Array<Frame> => {
    switch (part.type) {
      case "text-start":
        return ensure("message")
      case "reasoning-start":
        return ensure("reasoning")
      case "text-delta":
      case "reasoning-delta": {
        if (part.delta === "") return []
        const kind = part.type === "text-delta" ? "message" : "reasoning"
        const frames = ensure(kind)
        open!.text += part.delta
        const type = kind === "message" ? "response.output_text.delta" : "response.reasoning_summary_text.delta"
        const fields = kind === "message" ? { content_index: 0, logprobs: [] } : { summary_index: 0 }
        return [...frames, event(type, { ...at(open!), ...fields, delta: part.delta })]
      }
      case "text-end":
      case "reasoning-end":
        return close()
      case "tool-params-start":
        if (part.providerExecuted || called.has(part.id)) return []
        called.add(part.id)
        return begin(kindOf(part.name), { id: part.id, name: part.name })
      case "tool-params-delta":
        if (open?.call?.id !== part.id || part.delta === "") return []
        open.text += part.delta
        // a custom call's input is inside the arguments' JSON: written whole when they end
        if (open.kind === "custom_tool_call") return []
        return [event("response.function_call_arguments.delta", { ...at(open), delta: part.delta })]
      case "tool-params-end":
        return open?.call?.id === part.id ? close() : []
      case "tool-call": {
        if (part.providerExecuted) return []
        if (called.has(part.id)) return open?.call?.id === part.id ? close() : []
        called.add(part.id)
        const call = o.callOf(part)
        const frames = begin(kindOf(call.name), call)
        open!.text = call.arguments
        if (open!.kind === "custom_tool_call") return [...frames, ...close()]
        return [
          ...frames,
          event("response.function_call_arguments.delta", { ...at(open!), delta: call.arguments }),
          ...close()
        ]
      }
      case "finish": {
        const frames = close()
        const incomplete = incompleteOf(part.reason)
        const response = responseOf(answered, {
          status: statusOf(part.reason),
          output,
          usage: o.usageOf(part),
          incomplete
        })
        return [...frames, event(incomplete === undefined ? "response.completed" : "response.incomplete", { response })]
      }
      default:
        return []
    }
  }
  return {
    part: (part) => [...start(), ...frames(part)],
    end: () => [],
    // The `openai` SDK throws an APIError at an `error` event; Codex reads `response.failed`'s
    // `response.error` (and backs off by the "try again in" of a rate limit). Both, in that order.
    failed: (failed: Failed) => {
      const { code } = o.kinds[failed.kind]
      const message = o.messageOf(failed)
      const error = { code: failed.kind === "rate_limit" ? "rate_limit_exceeded" : "server_error", message }
      return [
        ...start(),
        event("error", { code, message, param: null }),
        event("response.failed", { response: responseOf(answered, { status: "failed", output, error }) })
      ]
    }
  }
}

/** OpenAI Responses. */
export const responses: Dialect = {
  name: "openai-responses",
  family: "openai",
  read,
  whole,
  stream: writer,
  error: o.errorBody
}
