/**
 * Anthropic Messages as the gateway serves it to Claude Code and the `@anthropic-ai/sdk`: the
 * request read by `anthropicRead.ts`, the streamed answer written by `anthropicStream.ts`, the
 * whole answer and the error here.
 */
import type * as Response from "effect/ai/Response"

import * as read from "./anthropicRead.js"
import * as streamed from "./anthropicStream.js"
import * as write from "./anthropicWrite.js"
import type { Answered, Dialect } from "./dialect.js"

const blockOf = (part: Response.Part<any>): Record<string, unknown> | undefined => {
  switch (part.type) {
    case "text":
      return part.text === "" ? undefined : { type: "text", text: part.text }
    case "reasoning": {
      const signed = write.signedOf(part.metadata)
      return signed.redactedData !== undefined
        ? { type: "redacted_thinking", data: signed.redactedData }
        : { type: "thinking", thinking: part.text, signature: write.signatureOf(signed) }
    }
    case "tool-call":
      return part.providerExecuted
        ? undefined
        : { type: "tool_use", id: part.id, name: part.name, input: part.params ?? {} }
    default:
      return undefined
  }
}

/** A whole Messages answer (`type: "message"`) of an answer's parts. */
export const whole = (parts: ReadonlyArray<Response.Part<any>>, answered: Answered) => {
  const content = parts.flatMap((part) => {
    const block = blockOf(part)
    return block === undefined ? [] : [block]
  })
  const finish = parts.find((part): part is Response.FinishPart => part.type === "finish")
  return {
    id: answered.id,
    type: "message",
    role: "assistant",
    model: answered.model,
    content,
    stop_reason: write.stopOf(finish?.reason, content.some((block) => block.type === "tool_use")),
    stop_sequence: null,
    usage: write.usageOf(finish)
  }
}

/** Anthropic Messages (`POST /v1/messages`). */
export const anthropic: Dialect = {
  name: "anthropic-messages",
  family: "anthropic",
  read: read.read,
  whole,
  stream: streamed.stream,
  error: write.errorOf
}
