import type * as LanguageModel from "effect/ai/LanguageModel"
import type * as Response from "effect/ai/Response"
import * as Config from "effect/Config"

import type * as AnthropicLanguageModel from "../../AnthropicLanguageModel.js"
import { generationOf, headersOf, messagesOf } from "./anthropicRequest.js"
import * as languageModel from "./languageModel.js"
import * as wire from "./wire.js"

/** How the reasoning parts of this family are marked (the board's `{ fallback: { family } }`). */
const family = { fallback: { family: "anthropic" } }

/** What a thinking block's parts carry: its family, and Anthropic's signature or redacted data where there is one. */
const signed = (signature: unknown, redactedData?: unknown) => ({
  ...family,
  ...(typeof redactedData === "string"
    ? { anthropic: { redactedData } }
    : typeof signature === "string" && signature !== ""
    ? { anthropic: { signature } }
    : {})
})

const toolChoiceOf = (choice: LanguageModel.ToolChoice<string>, forced: string | undefined) => {
  if (forced !== undefined) return { type: "tool", name: forced }
  if (choice === "auto") return { type: "auto" }
  if (choice === "required") return { type: "any" }
  if (choice === "none") return { type: "none" }
  if ("tool" in choice) return { type: "tool", name: choice.tool }
  return { type: choice.mode === "required" ? "any" : "auto" }
}

const finishOf = (stop: unknown, json: boolean): Response.FinishReason => {
  switch (stop) {
    case "end_turn":
    case "stop_sequence":
    case "pause_turn":
      return "stop"
    case "max_tokens":
      return "length"
    case "tool_use":
      return json ? "stop" : "tool-calls"
    case "refusal":
      return "content-filter"
    default:
      return "unknown"
  }
}

/** An answer asked for as an object is asked through a tool it must call: the object is that call's input. */
const objectTool = (options: LanguageModel.ProviderOptions) => {
  const format = wire.formatOf(options)
  return format === undefined
    ? undefined
    : { name: format.name, description: "Respond with a JSON object.", input_schema: format.schema }
}

/**
 * Anthropic Messages: `POST /v1/messages`, the key as `x-api-key`; a call asked for an object is
 * answered through a forced tool.
 *
 * @internal
 */
export const anthropic: wire.Wire = {
  module: "AnthropicLanguageModel",
  path: "/v1/messages",
  headers: headersOf,
  body: (options, model, stream, generation) => {
    const { messages, system } = messagesOf(options.prompt)
    const object = objectTool(options)
    const tools = [
      ...(options.toolChoice === "none"
        ? []
        : wire.toolsOf(options, (named, input_schema) => ({ ...named, input_schema }))),
      ...(object === undefined ? [] : [object])
    ]
    return {
      model: model.model,
      // a forced tool (an object's) and a prefill (a continued answer) are refused with thinking
      ...generationOf(generation, model.maxTokens, object !== undefined || messages.at(-1)?.role === "assistant"),
      ...(system.length === 0 ? {} : { system }),
      messages,
      ...(tools.length === 0 ? {} : { tools, tool_choice: toolChoiceOf(options.toolChoice, object?.name) }),
      ...(stream ? { stream: true } : {})
    }
  },
  parts: (body, options) => {
    const object = objectTool(options)
    const parts: Array<Response.PartEncoded> = [wire.metadata(body.id, body.model)]
    for (const block of Array.isArray(body.content) ? body.content : []) {
      if (block.type === "text") parts.push({ type: "text", text: block.text })
      else if (block.type === "thinking") {
        parts.push({ type: "reasoning", text: block.thinking, metadata: signed(block.signature) })
      } else if (block.type === "redacted_thinking") {
        parts.push({ type: "reasoning", text: "", metadata: signed(undefined, block.data) })
      } else if (block.type === "tool_use") {
        parts.push(
          object !== undefined && block.name === object.name
            ? { type: "text", text: JSON.stringify(block.input) }
            : wire.toolCall(block.id, block.name, block.input)
        )
      }
    }
    parts.push(
      wire.finish(finishOf(body.stop_reason, object !== undefined), body.usage?.input_tokens, body.usage?.output_tokens)
    )
    return parts
  },
  reader: (options) => {
    const object = objectTool(options)
    const blocks = new Map<
      number,
      {
        kind: "text" | "reasoning" | "tool" | "object"
        id: string
        name: string
        args: string
        signature?: string
        redacted?: string
      }
    >()
    let input: number | undefined
    let output: number | undefined
    let stop: unknown = undefined
    const read: wire.Reader["read"] = (event) => {
      const data = wire.parse(event.data)
      if (data === undefined) return { parts: [] }
      if (event.event === "error" || data.type === "error") return { parts: [], error: event.data }
      switch (data.type) {
        case "message_start":
          input = data.message?.usage?.input_tokens
          return { parts: [wire.metadata(data.message?.id, data.message?.model)] }
        case "content_block_start": {
          const block = data.content_block ?? {}
          const id = String(data.index)
          if (block.type === "text") {
            blocks.set(data.index, { kind: "text", id, name: "", args: "" })
            return { parts: [{ type: "text-start", id }] }
          }
          if (block.type === "thinking" || block.type === "redacted_thinking") {
            const redacted = block.type === "redacted_thinking" ? String(block.data ?? "") : undefined
            blocks.set(data.index, {
              kind: "reasoning",
              id,
              name: "",
              args: "",
              ...(redacted === undefined ? {} : { redacted })
            })
            return { parts: [{ type: "reasoning-start", id, metadata: signed(undefined, redacted) }] }
          }
          if (block.type === "tool_use") {
            if (object !== undefined && block.name === object.name) {
              blocks.set(data.index, { kind: "object", id, name: block.name, args: "" })
              return { parts: [{ type: "text-start", id }] }
            }
            blocks.set(data.index, { kind: "tool", id: block.id, name: block.name, args: "" })
            return {
              parts: [{ type: "tool-params-start", id: block.id, name: block.name } as Response.StreamPartEncoded]
            }
          }
          return { parts: [] }
        }
        case "content_block_delta": {
          const block = blocks.get(data.index)
          const delta = data.delta ?? {}
          if (block === undefined) return { parts: [] }
          if (delta.type === "text_delta") return { parts: [{ type: "text-delta", id: block.id, delta: delta.text }] }
          if (delta.type === "thinking_delta") {
            return { parts: [{ type: "reasoning-delta", id: block.id, delta: delta.thinking }] }
          }
          if (delta.type === "signature_delta") {
            block.signature = (block.signature ?? "") + String(delta.signature ?? "")
            return { parts: [] }
          }
          if (delta.type === "input_json_delta") {
            block.args += delta.partial_json
            return {
              parts: [{
                type: block.kind === "object" ? "text-delta" : "tool-params-delta",
                id: block.id,
                delta: delta.partial_json
              }]
            }
          }
          return { parts: [] }
        }
        case "content_block_stop": {
          const block = blocks.get(data.index)
          blocks.delete(data.index)
          if (block === undefined) return { parts: [] }
          if (block.kind === "tool") return { parts: wire.called(block.id, block.name, block.args) }
          if (block.kind === "reasoning") {
            return {
              parts: [{ type: "reasoning-end", id: block.id, metadata: signed(block.signature, block.redacted) }]
            }
          }
          return { parts: [{ type: "text-end", id: block.id }] }
        }
        case "message_delta":
          stop = data.delta?.stop_reason ?? stop
          output = data.usage?.output_tokens ?? output
          return { parts: [] }
        case "message_stop":
          return { done: true, parts: [wire.finish(finishOf(stop, object !== undefined), input, output)] }
        default:
          return { parts: [] }
      }
    }
    return { read }
  }
}

const optionsOf = (options: AnthropicLanguageModel.Options): languageModel.Options => ({
  model: options.model,
  apiKey: options.apiKey ?? Config.Redacted("ANTHROPIC_API_KEY"),
  baseUrl: options.baseUrl ?? "https://api.anthropic.com",
  headers: options.headers,
  maxTokens: options.maxTokens ?? 4096,
  name: options.name ?? "anthropic"
})

/** @internal */
export const make = (options: AnthropicLanguageModel.Options) => languageModel.make(anthropic, optionsOf(options))

/** @internal */
export const layer = (options: AnthropicLanguageModel.Options) => languageModel.layer(anthropic, optionsOf(options))
