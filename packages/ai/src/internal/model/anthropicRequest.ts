import type * as Prompt from "effect/ai/Prompt"

import type * as Generation from "../../Generation.js"
import * as wire from "./wire.js"

/** @internal */
export type Block = Record<string, unknown>

type Options = Readonly<Record<string, any>> | undefined

/** The `cache_control` a part or message asks for (`options.anthropic.cacheControl`), on its block. */
const cached = (block: Block, options: Options): Block => {
  const cacheControl = options?.anthropic?.cacheControl
  return cacheControl === undefined || cacheControl === null ? block : { ...block, cache_control: cacheControl }
}

/**
 * A reasoning part as Anthropic takes it back: a `thinking` block with the signature Anthropic
 * gave it, or the `redacted_thinking` block it was; anything another family thought, or a block
 * fallback wrote for a client itself (its signature starts `fallback:`), is left out: Anthropic
 * refuses a thinking block it did not sign.
 */
const thinkingOf = (part: Prompt.ReasoningPart): Block | undefined => {
  const options = part.options as Options
  const family = options?.fallback?.family
  if (family !== undefined && family !== "anthropic") return undefined
  const signature = options?.anthropic?.signature
  if (typeof signature === "string" && signature !== "" && !signature.startsWith("fallback:")) {
    return { type: "thinking", thinking: part.text, signature }
  }
  const redacted = options?.anthropic?.redactedData
  return typeof redacted === "string" && redacted !== "" ? { type: "redacted_thinking", data: redacted } : undefined
}

const fileBlock = (part: Prompt.FilePart): Block => {
  const data = part.data
  const source = data instanceof URL
    ? { type: "url", url: data.toString() }
    : typeof data === "string" && /^https?:\/\//.test(data)
    ? { type: "url", url: data }
    : {
      type: "base64",
      media_type: part.mediaType,
      data: typeof data === "string" ? data : Buffer.from(data as Uint8Array).toString("base64")
    }
  return { type: part.mediaType.startsWith("image/") ? "image" : "document", source }
}

const blockOf = (part: Prompt.Part): Block | undefined => {
  switch (part.type) {
    case "text":
      return { type: "text", text: part.text }
    case "file":
      return fileBlock(part)
    case "reasoning":
      return thinkingOf(part)
    case "tool-call":
      return part.providerExecuted ? undefined : { type: "tool_use", id: part.id, name: part.name, input: part.params }
    case "tool-result":
      return part.providerExecuted
        ? undefined
        : { type: "tool_result", tool_use_id: part.id, content: wire.resultText(part.result), is_error: part.isFailure }
    default:
      return undefined
  }
}

/** A message's blocks; its own `cache_control` goes on its last block, as Anthropic marks a message. */
const blocksOf = (message: Prompt.Message): Array<Block> => {
  if (message.role === "system") return []
  const out: Array<Block> = []
  for (const part of message.content as ReadonlyArray<Prompt.Part>) {
    const block = blockOf(part)
    if (block !== undefined) out.push(cached(block, part.options as Options))
  }
  const last = out.length - 1
  if (last >= 0 && out[last]!.cache_control === undefined) out[last] = cached(out[last]!, message.options as Options)
  return out
}

const thinks = (block: Block) => block.type === "thinking" || block.type === "redacted_thinking"

/**
 * The prompt as Anthropic's system blocks and alternating messages (a tool's results go as the
 * user's); an assistant message's thinking blocks first, as Anthropic requires.
 *
 * @internal
 */
export const messagesOf = (prompt: Prompt.Prompt) => {
  const system: Array<Block> = []
  const messages: Array<{ role: string; content: Array<Block> }> = []
  for (const message of prompt.content) {
    if (message.role === "system") {
      system.push(cached({ type: "text", text: message.content }, message.options as Options))
      continue
    }
    const role = message.role === "assistant" ? "assistant" : "user"
    const content = blocksOf(message)
    if (content.length === 0) continue
    const last = messages[messages.length - 1]
    if (last !== undefined && last.role === role) last.content.push(...content)
    else messages.push({ role, content })
  }
  for (const message of messages) {
    if (message.role === "assistant" && message.content.some(thinks)) {
      message.content = [...message.content.filter(thinks), ...message.content.filter((block) => !thinks(block))]
    }
  }
  return { system, messages }
}

/** The bearer token Claude's OAuth login gives (`sk-ant-oat…`), which Anthropic takes as `Authorization`, not `x-api-key`. */
const oauth = (key: string) => key.startsWith("sk-ant-oat")

/** The beta Anthropic asks of a call made with an OAuth token (the SDK's `OAUTH_API_BETA_HEADER`). */
const oauthBeta = "oauth-2025-04-20"

/** @internal */
export const headersOf = (key: string | undefined, given: Readonly<Record<string, string>>): Record<string, string> => {
  const out: Record<string, string> = { ...given, "anthropic-version": "2023-06-01" }
  if (key === undefined) return out
  if (!oauth(key)) return { ...out, "x-api-key": key }
  const betas: Array<string> = []
  for (const name of Object.keys(out)) {
    if (name.toLowerCase() !== "anthropic-beta") continue
    betas.push(...out[name]!.split(",").map((beta) => beta.trim()).filter((beta) => beta !== ""))
    delete out[name]
  }
  if (!betas.includes(oauthBeta)) betas.push(oauthBeta)
  return { ...out, authorization: `Bearer ${key}`, "anthropic-beta": betas.join(",") }
}

/**
 * The generation options in Anthropic's words. Thinking asks for a length cap above its budget:
 * one at or under it is raised to the budget plus the cap; temperature is left out while thinking,
 * and so is a `top_p` under 0.95 (Anthropic refuses both). An answer asked for as an object (a
 * forced tool) and a continued one (an assistant prefill) are made without thinking, which
 * Anthropic refuses with either.
 *
 * @internal
 */
export const generationOf = (generation: Generation.Options, cap: number, unthinking: boolean) => {
  const budget = unthinking ? undefined : generation.thinking?.budgetTokens
  const max = generation.maxTokens ?? cap
  const thinking = budget !== undefined
  return {
    max_tokens: thinking && max <= budget ? budget + max : max,
    ...(thinking ? { thinking: { type: "enabled", budget_tokens: budget } } : {}),
    ...(generation.temperature === undefined || thinking ? {} : { temperature: generation.temperature }),
    ...(generation.topP === undefined || (thinking && generation.topP < 0.95) ? {} : { top_p: generation.topP }),
    ...(generation.stop === undefined || generation.stop.length === 0 ? {} : { stop_sequences: generation.stop })
  }
}
