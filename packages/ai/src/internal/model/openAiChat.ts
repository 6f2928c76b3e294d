import type * as Prompt from "effect/ai/Prompt"
import type * as Response from "effect/ai/Response"

import { effortOf } from "../generation.js"
import { openAiWire, set } from "./openAiWire.js"
import * as wire from "./wire.js"

const messagesOf = (prompt: Prompt.Prompt): Array<Record<string, unknown>> => {
  const out: Array<Record<string, unknown>> = []
  for (const message of prompt.content) {
    switch (message.role) {
      case "system":
        out.push({ role: "system", content: message.content })
        break
      case "user":
        out.push({ role: "user", content: wire.textOf(message.content) })
        break
      case "assistant": {
        const calls = message.content.flatMap((part) =>
          part.type === "tool-call" && !part.providerExecuted
            ? [{ id: part.id, type: "function", function: { name: part.name, arguments: JSON.stringify(part.params) } }]
            : []
        )
        const text = wire.textOf(message.content)
        out.push({
          role: "assistant",
          content: text === "" ? null : text,
          ...(calls.length === 0 ? {} : { tool_calls: calls })
        })
        for (const part of message.content) {
          if (part.type === "tool-result" && !part.providerExecuted) {
            out.push({ role: "tool", tool_call_id: part.id, content: wire.resultText(part.result) })
          }
        }
        break
      }
      case "tool":
        for (const part of message.content) {
          if (part.type === "tool-result") {
            out.push({ role: "tool", tool_call_id: part.id, content: wire.resultText(part.result) })
          }
        }
        break
    }
  }
  return out
}

const finishOf = (reason: unknown): Response.FinishReason => {
  switch (reason) {
    case "stop":
      return "stop"
    case "length":
      return "length"
    case "tool_calls":
    case "function_call":
      return "tool-calls"
    case "content_filter":
      return "content-filter"
    default:
      return "unknown"
  }
}

/**
 * OpenAI Chat Completions, as OpenAI and every OpenAI-compatible server (llama.cpp, vLLM, Ollama)
 * speak it: `POST /chat/completions`, the key, where there is one, as a bearer token.
 *
 * @internal
 */
export const openAiChat: wire.Wire = openAiWire({
  path: "/chat/completions",
  prompt: (prompt) => ({ messages: messagesOf(prompt) }),
  tool: (named, parameters) => ({ type: "function", function: { ...named, parameters } }),
  named: (name) => ({ type: "function", function: { name } }),
  format: (format) => ({
    response_format: { type: "json_schema", json_schema: { name: format.name, schema: format.schema, strict: false } }
  }),
  stream: { stream: true, stream_options: { include_usage: true } },
  // `max_tokens`, not `max_completion_tokens`: the compatible servers read it
  generation: (generation) =>
    set({
      max_tokens: generation.maxTokens,
      temperature: generation.temperature,
      top_p: generation.topP,
      stop: generation.stop === undefined || generation.stop.length === 0 ? undefined : generation.stop,
      reasoning_effort: generation.thinking === undefined ? undefined : effortOf(generation.thinking.budgetTokens)
    }),
  parts: (body) => {
    const choice = Array.isArray(body.choices) ? body.choices[0] : undefined
    const message = choice?.message ?? {}
    const parts: Array<Response.PartEncoded> = [wire.metadata(body.id, body.model)]
    const reasoning = message.reasoning_content ?? message.reasoning
    if (typeof reasoning === "string" && reasoning !== "") {
      parts.push({ type: "reasoning", text: reasoning, metadata: wire.openAiFamily })
    }
    if (typeof message.content === "string" && message.content !== "") {
      parts.push({ type: "text", text: message.content })
    }
    for (const call of Array.isArray(message.tool_calls) ? message.tool_calls : []) {
      parts.push(wire.toolCall(call.id, call.function?.name, wire.parseArgs(call.function?.arguments ?? "")))
    }
    parts.push(wire.finish(finishOf(choice?.finish_reason), body.usage?.prompt_tokens, body.usage?.completion_tokens))
    return parts
  },
  reader: () => {
    const calls = new Map<number, { id: string; name: string; args: string }>()
    let started = false
    let texting = false
    let thinking = false
    let reason: unknown = undefined
    let input: number | undefined
    let output: number | undefined
    const thought = (): Array<Response.StreamPartEncoded> => {
      if (!thinking) return []
      thinking = false
      return [{ type: "reasoning-end", id: "reasoning-0", metadata: wire.openAiFamily }]
    }
    const ending = (): Array<Response.StreamPartEncoded> => [
      ...thought(),
      ...(texting ? [{ type: "text-end", id: "0" } as Response.StreamPartEncoded] : []),
      ...[...calls.values()].flatMap((call) => wire.called(call.id, call.name, call.args)),
      wire.finish(finishOf(reason), input, output)
    ]
    const read: wire.Reader["read"] = (event) => {
      if (event.data.trim() === "[DONE]") return { parts: ending(), done: true }
      const data = wire.parse(event.data)
      if (data === undefined) return { parts: [] }
      if (data.error !== undefined && data.error !== null) return { parts: [], error: event.data }
      const parts: Array<Response.StreamPartEncoded> = []
      if (!started) {
        started = true
        parts.push(wire.metadata(data.id, data.model))
      }
      if (data.usage) {
        input = data.usage.prompt_tokens ?? input
        output = data.usage.completion_tokens ?? output
      }
      const choice = Array.isArray(data.choices) ? data.choices[0] : undefined
      if (choice?.finish_reason) reason = choice.finish_reason
      // compatible servers stream a reasoning model's thinking as `reasoning_content` or `reasoning`
      const reasoning = choice?.delta?.reasoning_content ?? choice?.delta?.reasoning
      if (typeof reasoning === "string" && reasoning !== "") {
        if (!thinking) parts.push({ type: "reasoning-start", id: "reasoning-0", metadata: wire.openAiFamily })
        thinking = true
        parts.push({ type: "reasoning-delta", id: "reasoning-0", delta: reasoning })
      }
      const text = choice?.delta?.content
      if (typeof text === "string" && text !== "") {
        parts.push(...thought())
        if (!texting) parts.push({ type: "text-start", id: "0" })
        texting = true
        parts.push({ type: "text-delta", id: "0", delta: text })
      }
      for (const call of Array.isArray(choice?.delta?.tool_calls) ? choice.delta.tool_calls : []) {
        const index = Number(call.index ?? 0)
        let known = calls.get(index)
        if (known === undefined) {
          known = { id: call.id ?? `call_${index}`, name: call.function?.name ?? "", args: "" }
          calls.set(index, known)
          parts.push({ type: "tool-params-start", id: known.id, name: known.name } as Response.StreamPartEncoded)
        }
        const args = call.function?.arguments
        if (typeof args === "string" && args !== "") {
          known.args += args
          parts.push({ type: "tool-params-delta", id: known.id, delta: args })
        }
      }
      return { parts }
    }
    return { read, ended: () => reason === undefined ? undefined : ending() }
  }
})
