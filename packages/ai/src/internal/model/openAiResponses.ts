import type * as Prompt from "effect/ai/Prompt"
import type * as Response from "effect/ai/Response"

import { effortOf } from "../generation.js"
import { openAiWire, set } from "./openAiWire.js"
import * as wire from "./wire.js"

const inputOf = (prompt: Prompt.Prompt): Array<Record<string, unknown>> => {
  const out: Array<Record<string, unknown>> = []
  for (const message of prompt.content) {
    if (message.role === "system") {
      out.push({ role: "system", content: message.content })
      continue
    }
    if (message.role === "user") {
      out.push({ role: "user", content: [{ type: "input_text", text: wire.textOf(message.content) }] })
      continue
    }
    for (const part of message.content as ReadonlyArray<Prompt.Part>) {
      if (part.type === "text") {
        out.push({ role: "assistant", content: [{ type: "output_text", text: part.text }] })
      } else if (part.type === "tool-call" && !part.providerExecuted) {
        out.push({ type: "function_call", call_id: part.id, name: part.name, arguments: JSON.stringify(part.params) })
      } else if (part.type === "tool-result" && !part.providerExecuted) {
        out.push({ type: "function_call_output", call_id: part.id, output: wire.resultText(part.result) })
      }
    }
  }
  return out
}

const finishOf = (body: any, calling: boolean): Response.FinishReason => {
  if (body?.status === "incomplete") {
    return body.incomplete_details?.reason === "content_filter" ? "content-filter" : "length"
  }
  return calling ? "tool-calls" : "stop"
}

const outputParts = (output: ReadonlyArray<any>): Array<Response.PartEncoded> =>
  output.flatMap((item): Array<Response.PartEncoded> => {
    if (item.type === "message") {
      return (item.content ?? []).flatMap((part: any) =>
        part.type === "output_text" ? [{ type: "text", text: part.text } as Response.PartEncoded] : []
      )
    }
    if (item.type === "function_call") {
      return [wire.toolCall(item.call_id, item.name, wire.parseArgs(item.arguments ?? ""))]
    }
    if (item.type === "reasoning") {
      return (item.summary ?? []).map((part: any) =>
        ({ type: "reasoning", text: part.text, metadata: wire.openAiFamily }) as Response.PartEncoded
      )
    }
    return []
  })

/**
 * OpenAI Responses: `POST /responses`, the key as a bearer token; an answer asked for as an
 * object is asked with a JSON Schema format.
 *
 * @internal
 */
export const openAiResponses: wire.Wire = openAiWire({
  path: "/responses",
  prompt: (prompt) => ({ input: inputOf(prompt) }),
  tool: (named, parameters) => ({ type: "function", ...named, parameters, strict: false }),
  named: (name) => ({ type: "function", name }),
  format: (format) => ({
    text: { format: { type: "json_schema", name: format.name, schema: format.schema, strict: false } }
  }),
  stream: { stream: true },
  // Responses takes no stop sequences
  generation: (generation) =>
    set({
      max_output_tokens: generation.maxTokens,
      temperature: generation.temperature,
      top_p: generation.topP,
      reasoning: generation.thinking === undefined ? undefined : { effort: effortOf(generation.thinking.budgetTokens) }
    }),
  parts: (body) => {
    const output = Array.isArray(body.output) ? body.output : []
    return [
      wire.metadata(body.id, body.model),
      ...outputParts(output),
      wire.finish(
        finishOf(body, output.some((item: any) => item.type === "function_call")),
        body.usage?.input_tokens,
        body.usage?.output_tokens
      )
    ]
  },
  reader: () => {
    const calls = new Map<string, { id: string; name: string }>()
    const texts = new Set<string>()
    const thoughts = new Set<string>()
    let calling = false
    const read: wire.Reader["read"] = (event) => {
      const data = wire.parse(event.data)
      if (data === undefined) return { parts: [] }
      switch (data.type) {
        case "response.created":
          return { parts: [wire.metadata(data.response?.id, data.response?.model)] }
        case "response.output_item.added": {
          const item = data.item ?? {}
          if (item.type === "function_call") {
            calling = true
            calls.set(item.id, { id: item.call_id, name: item.name })
            return {
              parts: [{ type: "tool-params-start", id: item.call_id, name: item.name } as Response.StreamPartEncoded]
            }
          }
          return { parts: [] }
        }
        case "response.output_text.delta": {
          const id = String(data.item_id)
          const start = texts.has(id) ? [] : [{ type: "text-start", id } as Response.StreamPartEncoded]
          texts.add(id)
          return { parts: [...start, { type: "text-delta", id, delta: data.delta }] }
        }
        case "response.reasoning_summary_text.delta": {
          const id = `${data.item_id}:${data.summary_index ?? 0}`
          const start = thoughts.has(id)
            ? []
            : [{ type: "reasoning-start", id, metadata: wire.openAiFamily } as Response.StreamPartEncoded]
          thoughts.add(id)
          return { parts: [...start, { type: "reasoning-delta", id, delta: data.delta }] }
        }
        case "response.reasoning_summary_text.done": {
          const id = `${data.item_id}:${data.summary_index ?? 0}`
          if (!thoughts.delete(id)) return { parts: [] }
          return { parts: [{ type: "reasoning-end", id, metadata: wire.openAiFamily }] }
        }
        case "response.function_call_arguments.delta": {
          const call = calls.get(data.item_id)
          return call === undefined
            ? { parts: [] }
            : { parts: [{ type: "tool-params-delta", id: call.id, delta: data.delta }] }
        }
        case "response.output_item.done": {
          const item = data.item ?? {}
          if (item.type === "function_call") {
            return { parts: wire.called(item.call_id, item.name, item.arguments ?? "") }
          }
          if (item.type === "reasoning") {
            const open = [...thoughts].filter((id) => id.startsWith(`${item.id}:`))
            for (const id of open) thoughts.delete(id)
            return { parts: open.map((id) => ({ type: "reasoning-end", id, metadata: wire.openAiFamily })) }
          }
          if (item.type === "message" && texts.has(String(item.id))) {
            return { parts: [{ type: "text-end", id: String(item.id) }] }
          }
          return { parts: [] }
        }
        case "response.completed":
        case "response.incomplete":
          return {
            done: true,
            parts: [
              wire.finish(
                finishOf(data.response, calling),
                data.response?.usage?.input_tokens,
                data.response?.usage?.output_tokens
              )
            ]
          }
        case "response.failed":
        case "error":
          return {
            parts: [],
            error: JSON.stringify(data.response?.error !== undefined ? { error: data.response.error } : data)
          }
        default:
          return { parts: [] }
      }
    }
    return { read }
  }
})
