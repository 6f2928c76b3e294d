import type * as Prompt from "effect/ai/Prompt"
import type * as Response from "effect/ai/Response"

import { toolChoiceOf } from "./openAiChat.js"
import type { Read, Wire } from "./wire.js"
import { formatOf, parse, parseArgs, resultText, textOf, toolsOf, usage } from "./wire.js"

const inputOf = (prompt: Prompt.Prompt): Array<Record<string, unknown>> => {
  const out: Array<Record<string, unknown>> = []
  for (const message of prompt.content) {
    if (message.role === "system") {
      out.push({ role: "system", content: message.content })
      continue
    }
    if (message.role === "user") {
      out.push({ role: "user", content: [{ type: "input_text", text: textOf(message.content) }] })
      continue
    }
    for (const part of message.content as ReadonlyArray<Prompt.Part>) {
      if (part.type === "text") {
        out.push({ role: "assistant", content: [{ type: "output_text", text: part.text }] })
      } else if (part.type === "tool-call" && !part.providerExecuted) {
        out.push({ type: "function_call", call_id: part.id, name: part.name, arguments: JSON.stringify(part.params) })
      } else if (part.type === "tool-result" && !part.providerExecuted) {
        out.push({ type: "function_call_output", call_id: part.id, output: resultText(part.result) })
      }
    }
  }
  return out
}

const finishOf = (body: any, called: boolean): Response.FinishReason => {
  if (body?.status === "incomplete") {
    return body.incomplete_details?.reason === "content_filter" ? "content-filter" : "length"
  }
  return called ? "tool-calls" : "stop"
}

const outputParts = (output: ReadonlyArray<any>): Array<Response.PartEncoded> =>
  output.flatMap((item): Array<Response.PartEncoded> => {
    if (item.type === "message") {
      return (item.content ?? []).flatMap((part: any) =>
        part.type === "output_text" ? [{ type: "text", text: part.text } as Response.PartEncoded] : []
      )
    }
    if (item.type === "function_call") {
      return [
        {
          type: "tool-call",
          id: item.call_id,
          name: item.name,
          params: parseArgs(item.arguments ?? "")
        } as Response.PartEncoded
      ]
    }
    if (item.type === "reasoning") {
      return (item.summary ?? []).map((part: any) => ({ type: "reasoning", text: part.text }) as Response.PartEncoded)
    }
    return []
  })

/**
 * OpenAI Responses: `POST /responses`, the key as a bearer token; an answer asked for as an
 * object is asked with a JSON Schema format.
 *
 * @internal
 */
export const openAiResponses: Wire = {
  module: "OpenAiLanguageModel",
  path: "/responses",
  headers: (key) => key === undefined ? {} : { authorization: `Bearer ${key}` },
  body: (options, model, stream) => {
    const tools = toolsOf(options).map((tool) => ({
      type: "function",
      name: tool.name,
      ...(tool.description === undefined ? {} : { description: tool.description }),
      parameters: tool.schema,
      strict: false
    }))
    const format = formatOf(options)
    return {
      model: model.model,
      input: inputOf(options.prompt),
      ...(tools.length === 0 ? {} : {
        tools,
        tool_choice: toolChoiceOf(options.toolChoice, (name) => ({ type: "function", name }))
      }),
      ...(format === undefined ? {} : {
        text: { format: { type: "json_schema", name: format.name, schema: format.schema, strict: false } }
      }),
      ...(stream ? { stream: true } : {})
    }
  },
  parts: (body) => {
    const output = Array.isArray(body.output) ? body.output : []
    const parts: Array<Response.PartEncoded> = [
      {
        type: "response-metadata",
        id: body.id,
        modelId: body.model,
        timestamp: new Date().toISOString()
      } as Response.PartEncoded,
      ...outputParts(output)
    ]
    parts.push({
      type: "finish",
      reason: finishOf(body, output.some((item: any) => item.type === "function_call")),
      usage: usage(body.usage?.input_tokens, body.usage?.output_tokens)
    } as Response.PartEncoded)
    return parts
  },
  reader: () => {
    const calls = new Map<string, { id: string; name: string }>()
    const texts = new Set<string>()
    let called = false
    const read = (event: { readonly event: string; readonly data: string }): Read => {
      const data = parse(event.data)
      if (data === undefined) return { parts: [] }
      switch (data.type) {
        case "response.created":
          return {
            parts: [{
              type: "response-metadata",
              id: data.response?.id,
              modelId: data.response?.model,
              timestamp: new Date().toISOString()
            } as Response.StreamPartEncoded]
          }
        case "response.output_item.added": {
          const item = data.item ?? {}
          if (item.type === "function_call") {
            called = true
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
        case "response.function_call_arguments.delta": {
          const call = calls.get(data.item_id)
          return call === undefined
            ? { parts: [] }
            : { parts: [{ type: "tool-params-delta", id: call.id, delta: data.delta }] }
        }
        case "response.output_item.done": {
          const item = data.item ?? {}
          if (item.type === "function_call") {
            return {
              parts: [
                { type: "tool-params-end", id: item.call_id },
                {
                  type: "tool-call",
                  id: item.call_id,
                  name: item.name,
                  params: parseArgs(item.arguments ?? "")
                } as Response.StreamPartEncoded
              ]
            }
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
            parts: [{
              type: "finish",
              reason: finishOf(data.response, called),
              usage: usage(data.response?.usage?.input_tokens, data.response?.usage?.output_tokens)
            } as Response.StreamPartEncoded]
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
}
