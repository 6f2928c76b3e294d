/** Response parts as the engine gives them, and the Anthropic events a writer wrote, for the Anthropic wire's tests. */
import { Result } from "effect"
import { Response } from "effect/ai"

import { anthropic } from "../../src/internal/wire/anthropic.js"
import type { Call } from "../../src/internal/wire/dialect.js"

export * from "./parts.js"

export const answered = { model: "anthropic/claude-sonnet-4-5", id: "msg_gateway_1", created: 1_800_000_000 }

/** The call a streamed answer is for (the Anthropic writer writes the same whatever it asked). */
export const call: Call = Result.getOrThrow(
  anthropic.read({ model: "claude-sonnet-4-5", max_tokens: 1024, messages: [{ role: "user", content: "hi" }] })
)

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
