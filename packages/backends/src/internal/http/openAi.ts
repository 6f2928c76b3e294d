import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type { Wire } from "./wire.js"
import { malformed, messages, nothing, parseData } from "./wire.js"

const filtered = JSON.stringify({
  error: {
    code: "content_filter",
    message: "the provider's content filter stopped the answer (finish_reason: content_filter)"
  }
})

/**
 * OpenAI-compatible Chat Completions: `POST /chat/completions` streamed with usage; the answer is
 * finished at `[DONE]`, or when the stream ends after a `finish_reason` (servers that leave
 * `[DONE]` out); a chunk carrying `error` (or typed `error`, `response.failed`), or an event named
 * `error` whatever its data, is the provider's failure. A continuation, where the model takes one,
 * is sent as a final assistant message.
 *
 * @internal
 */
export const openAi: Wire = {
  turnPath: "/chat/completions",
  modelsPath: "/models",
  headers: (key) =>
    Option.match(key, {
      onNone: () => ({}),
      onSome: (value) => ({ authorization: `Bearer ${Redacted.value(value)}` })
    }),
  body: (model, prompt) => ({
    model,
    stream: true,
    stream_options: { include_usage: true },
    messages: messages(prompt)
  }),
  read: (reading, event) => {
    if (event.data.trim() === "[DONE]") {
      reading.finished = true
      return { texts: [], done: true }
    }
    const data = parseData(event.data)
    if (event.event === "error") return { texts: [], done: false, error: event.data }
    if (data === undefined) return malformed
    // Responses' failure event carries its error inside the response.
    if (data.type === "response.failed") {
      return { texts: [], done: false, error: JSON.stringify({ error: data.response?.error ?? data.response ?? {} }) }
    }
    if ((data.error !== undefined && data.error !== null) || data.type === "error") {
      return { texts: [], done: false, error: event.data }
    }
    if (reading.model === undefined && typeof data.model === "string" && data.model !== "") reading.model = data.model
    if (data.usage) {
      reading.input = Number(data.usage.prompt_tokens ?? reading.input)
      reading.output = Number(data.usage.completion_tokens ?? reading.output)
    }
    const choice = Array.isArray(data.choices) ? data.choices[0] : undefined
    // A 200 whose answer the content filter stopped is a refused prompt, not an answer.
    if (choice?.finish_reason === "content_filter") return { texts: [], done: false, error: filtered }
    if (choice?.finish_reason) reading.finished = true
    const text = typeof choice?.delta?.content === "string" ? choice.delta.content : ""
    reading.text += text
    // The reasoning servers stream beside the answer: `reasoning_content` (DeepSeek, vLLM,
    // llama.cpp) or `reasoning` (Ollama, OpenRouter).
    const reasoning = choice?.delta?.reasoning_content ?? choice?.delta?.reasoning
    const thought = typeof reasoning === "string" && reasoning !== "" ? [reasoning] : undefined
    return text === "" && thought === undefined
      ? nothing
      : { thinking: thought, texts: text === "" ? [] : [text], done: false }
  }
}
