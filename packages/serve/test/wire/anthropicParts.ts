/** Response parts as the engine gives them, and the Anthropic events a writer wrote, for the Anthropic wire's tests. */
import { Result } from "effect"
import { Response } from "effect/ai"

import { anthropic } from "../../src/internal/wire/anthropic.js"
import type { Call, Frame } from "../../src/internal/wire/dialect.js"

export const answered = { model: "anthropic/claude-sonnet-4-5", id: "msg_gateway_1", created: 1_800_000_000 }

/** The call a streamed answer is for (the Anthropic writer writes the same whatever it asked). */
export const call: Call = Result.getOrThrow(
  anthropic.read({ model: "claude-sonnet-4-5", max_tokens: 1024, messages: [{ role: "user", content: "hi" }] })
)

export const metadata = () =>
  Response.makePart("response-metadata", { id: "up_1", modelId: "claude", timestamp: undefined })
export const text = (text: string) => Response.makePart("text", { text })
export const reasoning = (text: string, metadata: Record<string, any> = {}) =>
  Response.makePart("reasoning", { text, metadata })
export const textStart = (id: string) => Response.makePart("text-start", { id })
export const textDelta = (id: string, delta: string) => Response.makePart("text-delta", { id, delta })
export const textEnd = (id: string) => Response.makePart("text-end", { id })
export const reasoningStart = (id: string, metadata: Record<string, any> = {}) =>
  Response.makePart("reasoning-start", { id, metadata })
export const reasoningDelta = (id: string, delta: string) => Response.makePart("reasoning-delta", { id, delta })
export const reasoningEnd = (id: string, metadata: Record<string, any> = {}) =>
  Response.makePart("reasoning-end", { id, metadata })
export const paramsStart = (id: string, name: string) =>
  Response.makePart("tool-params-start", { id, name, providerExecuted: false })
export const paramsDelta = (id: string, delta: string) => Response.makePart("tool-params-delta", { id, delta })
export const paramsEnd = (id: string) => Response.makePart("tool-params-end", { id })
export const toolCall = (id: string, name: string, params: unknown) =>
  Response.makePart("tool-call", { id, name, params, providerExecuted: false }) as Response.ToolCallPart<
    string,
    unknown
  >

export const finish = (
  reason: Response.FinishReason,
  usage: { input?: number; output?: number; cacheRead?: number } = {}
) =>
  Response.makePart("finish", {
    reason,
    usage: new Response.Usage({
      inputTokens: { uncached: usage.input, total: undefined, cacheRead: usage.cacheRead, cacheWrite: undefined },
      outputTokens: { total: usage.output, text: undefined, reasoning: undefined }
    }),
    response: undefined
  })

/** Anthropic-signed reasoning's metadata. */
export const signed = (signature: string) => ({ anthropic: { signature }, fallback: { family: "anthropic" } })

/** The bytes of a text/event-stream body of frames. */
export const sse = (frames: ReadonlyArray<Frame>) =>
  frames.map((frame) => `${frame.event === undefined ? "" : `event: ${frame.event}\n`}data: ${frame.data}\n\n`).join("")

/** The events of a text/event-stream body, pings left out. */
export const events = (body: string): Array<{ event: string; data: any }> =>
  body.split("\n\n").filter((chunk) => chunk.trim() !== "").map((chunk) => {
    const lines = chunk.split("\n")
    const event = lines.find((line) => line.startsWith("event: "))?.slice(7) ?? ""
    const data = lines.filter((line) => line.startsWith("data: ")).map((line) => line.slice(6)).join("\n")
    return { event, data: JSON.parse(data) }
  }).filter((e) => e.event !== "ping")
