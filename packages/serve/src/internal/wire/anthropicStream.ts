/**
 * Anthropic's streamed answer: `message_start`, then content blocks one at a time (each
 * `content_block_start`, its deltas, `content_block_stop`, indexed in order), then `message_delta`
 * with the stop reason and usage, and `message_stop`.
 *
 * The engine's parts may interleave blocks (a text delta while a tool call's parameters stream).
 * A part for another block closes an open text block (a later delta of that text opens a new one);
 * a thinking or tool block is kept open to its end, since its signature or its JSON belongs to one
 * block: parts of other blocks wait in order behind it, and each block's own parts keep their order.
 */
import type * as Response from "effect/ai/Response"

import * as write from "./anthropicWrite.js"
import type { Answered, Call, Failed, Frame, StreamWriter } from "./dialect.js"

type Part = Response.StreamPart<any>

type Open =
  | { readonly kind: "text"; readonly key: string; readonly index: number }
  | { readonly kind: "thinking"; readonly key: string; readonly index: number; signed: write.Signed }
  | { readonly kind: "redacted"; readonly key: string; readonly index: number }
  | { readonly kind: "tool"; readonly key: string; readonly index: number; readonly id: string; sent: boolean }

/** The block a part belongs to, or none (metadata, sources, results the client never sees). */
const keyOf = (part: Part): string | undefined => {
  switch (part.type) {
    case "text-start":
    case "text-delta":
    case "text-end":
      return `text:${part.id}`
    case "reasoning-start":
    case "reasoning-delta":
    case "reasoning-end":
      return `reasoning:${part.id}`
    case "tool-params-start":
    case "tool-params-delta":
    case "tool-params-end":
      return `tool:${part.id}`
    case "tool-call":
      return part.providerExecuted ? undefined : `tool:${part.id}`
    default:
      return undefined
  }
}

const frame = (event: string, data: Record<string, unknown>): Frame => ({
  event,
  data: JSON.stringify({ type: event, ...data })
})

/** A writer of one streamed answer's Anthropic events (the same whatever the call asked). */
export const stream = (answered: Answered, _call?: Call): StreamWriter => {
  let out: Array<Frame> = []
  let started = false
  let stopped = false
  let delta = false
  let open: Open | undefined
  let next = 0
  let called = false
  let finish: Response.FinishPart | undefined
  let queue: Array<Part> = []
  const done = new Set<string>()

  const start = () => {
    if (started) return
    started = true
    out.push(frame("message_start", {
      message: {
        id: answered.id,
        type: "message",
        role: "assistant",
        model: answered.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 0, output_tokens: 0 }
      }
    }))
  }

  const close = () => {
    if (open === undefined) return
    if (open.kind === "thinking") {
      const signature = write.signatureOf(open.signed)
      out.push(frame("content_block_delta", { index: open.index, delta: { type: "signature_delta", signature } }))
    }
    if (open.kind === "tool") done.add(open.id)
    out.push(frame("content_block_stop", { index: open.index }))
    open = undefined
  }

  const begin = (block: Open, content: Record<string, unknown>) => {
    close()
    open = block
    next += 1
    out.push(frame("content_block_start", { index: block.index, content_block: content }))
  }

  const blockDelta = (delta: Record<string, unknown>) =>
    out.push(frame("content_block_delta", { index: open!.index, delta }))

  const beginReasoning = (key: string, signed: write.Signed) => {
    if (open?.key === key) return
    if (signed.redactedData !== undefined) {
      begin({ kind: "redacted", key, index: next }, { type: "redacted_thinking", data: signed.redactedData })
    } else begin({ kind: "thinking", key, index: next, signed }, { type: "thinking", thinking: "", signature: "" })
  }

  const beginTool = (key: string, id: string, name: string) => {
    if (open?.key === key) return
    called = true
    begin({ kind: "tool", key, index: next, id, sent: false }, { type: "tool_use", id, name, input: {} })
  }

  const handle = (part: Part, key: string) => {
    switch (part.type) {
      case "text-delta":
        if (part.delta === "") return
        if (open?.key !== key) begin({ kind: "text", key, index: next }, { type: "text", text: "" })
        return blockDelta({ type: "text_delta", text: part.delta })
      case "text-end":
        return open?.key === key ? close() : undefined
      case "reasoning-start":
      case "reasoning-delta":
      case "reasoning-end": {
        const signed = write.signedOf(part.metadata)
        if (part.type === "reasoning-end" && open?.key !== key) return
        beginReasoning(key, signed)
        if (open?.kind === "thinking") open.signed = write.merge(open.signed, signed)
        if (part.type === "reasoning-end") return close()
        if (part.type === "reasoning-delta" && part.delta !== "" && open?.kind === "thinking") {
          blockDelta({ type: "thinking_delta", thinking: part.delta })
        }
        return
      }
      case "tool-params-start":
        return done.has(part.id) ? undefined : beginTool(key, part.id, part.name)
      case "tool-params-delta":
        if (open?.kind !== "tool" || open.key !== key || part.delta === "") return
        open.sent = true
        return blockDelta({ type: "input_json_delta", partial_json: part.delta })
      case "tool-params-end":
        return open?.kind === "tool" && open.key === key && open.sent ? close() : undefined
      case "tool-call": {
        if (done.has(part.id)) return
        beginTool(key, part.id, part.name)
        if (open?.kind === "tool" && !open.sent) {
          blockDelta({ type: "input_json_delta", partial_json: JSON.stringify(part.params ?? {}) })
        }
        return close()
      }
    }
  }

  const accepts = (key: string) => open === undefined || open.kind === "text" || open.key === key

  /** Handles what waits, in order, as far as the open block lets it; a block's parts never pass each other. */
  const drain = () => {
    let progressed = true
    while (progressed && queue.length > 0) {
      progressed = false
      const held = new Set<string>()
      const rest: Array<Part> = []
      for (const part of queue) {
        const key = keyOf(part)!
        if (!held.has(key) && accepts(key)) {
          handle(part, key)
          progressed = true
        } else {
          held.add(key)
          rest.push(part)
        }
      }
      queue = rest
    }
  }

  /** At the finish nothing more comes: what waits is written block by block, in the order the blocks began. */
  const flush = () => {
    const groups = new Map<string, Array<Part>>()
    for (const part of queue) {
      const key = keyOf(part)!
      groups.set(key, [...(groups.get(key) ?? []), part])
    }
    queue = []
    for (const [key, parts] of groups) for (const part of parts) handle(part, key)
    close()
  }

  const finished = () => {
    if (delta) return
    delta = true
    flush()
    out.push(frame("message_delta", {
      delta: { stop_reason: write.stopOf(finish?.reason, called), stop_sequence: null },
      usage: write.usageOf(finish)
    }))
  }

  const take = () => {
    const taken = out
    out = []
    return taken
  }

  return {
    part: (part) => {
      if (stopped || delta) return []
      start()
      if (part.type === "finish") {
        finish = part
        finished()
        return take()
      }
      const key = keyOf(part)
      if (key === undefined) return take()
      if (queue.length > 0 || !accepts(key)) queue.push(part)
      else handle(part, key)
      drain()
      return take()
    },
    end: () => {
      if (stopped) return []
      start()
      finished()
      stopped = true
      out.push(frame("message_stop", {}))
      return take()
    },
    failed: (failed: Failed) => {
      if (stopped) return []
      stopped = true
      if (open !== undefined) out.push(frame("content_block_stop", { index: open.index }))
      out.push(frame("error", write.errorOf(failed)))
      return take()
    }
  }
}
