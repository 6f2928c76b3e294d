import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type { Wire } from "./wire.js"
import { malformed, messages, nothing, parseData } from "./wire.js"

const refusal = JSON.stringify({
  type: "error",
  error: { type: "refusal", message: "the model declined to answer (stop_reason: refusal)" }
})

/**
 * Anthropic Messages: `POST /v1/messages` streamed; the answer is finished at `message_stop`, or
 * once `message_delta` gave its stop reason (a body that ends after it, without `message_stop`, is
 * answered); an `error` event inside the stream is the provider's failure. A continuation is sent
 * as a final assistant message (a prefill), without the trailing white space Messages refuses.
 *
 * @internal
 */
export const anthropic: Wire = {
  turnPath: "/v1/messages",
  modelsPath: "/v1/models",
  headers: (key) => ({
    "anthropic-version": "2023-06-01",
    ...Option.match(key, { onNone: () => ({}), onSome: (value) => ({ "x-api-key": Redacted.value(value) }) })
  }),
  body: (model, prompt, maxTokens) => ({
    model,
    max_tokens: maxTokens,
    stream: true,
    messages: messages(prompt, (text) => text.trimEnd())
  }),
  read: (reading, event) => {
    const data = parseData(event.data)
    if (data === undefined) return event.event === "error" ? { texts: [], done: false, error: event.data } : malformed
    if (event.event === "error" || data.type === "error") return { texts: [], done: false, error: event.data }
    switch (data.type) {
      case "message_start":
        reading.input = Number(data.message?.usage?.input_tokens ?? 0)
        if (typeof data.message?.model === "string") reading.model = data.message.model
        return nothing
      case "content_block_delta": {
        if (data.delta?.type === "thinking_delta" && typeof data.delta.thinking === "string") {
          return { thinking: [data.delta.thinking], texts: [], done: false }
        }
        const text = data.delta?.type === "text_delta" && typeof data.delta.text === "string" ? data.delta.text : ""
        reading.text += text
        return text === "" ? nothing : { texts: [text], done: false }
      }
      case "message_delta":
        if (data.delta?.stop_reason === "refusal") return { texts: [], done: false, error: refusal }
        reading.output = Number(data.usage?.output_tokens ?? reading.output)
        if (typeof data.delta?.stop_reason === "string") reading.finished = true
        return nothing
      case "message_stop":
        reading.finished = true
        return { texts: [], done: true }
      default:
        return nothing
    }
  }
}
