/**
 * `POST /v1/messages/count_tokens`, answered by the gateway itself: agent CLIs (Claude Code) call it
 * many times a second as they start, and no place's count is the count of the place that will
 * answer. The estimate is about four characters a token over the system prompt, the messages
 * (their text, tool calls' inputs and results as JSON, thinking) and the tools' definitions; a
 * file (an image, a PDF) is counted as its base64 data would be, which overcounts images.
 */
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"

import { Invalid } from "./dialect.js"

const Counted = Schema.Struct({
  model: Schema.String,
  messages: Schema.Array(Schema.Struct({ role: Schema.String, content: Schema.Unknown })),
  system: Schema.optional(Schema.Unknown),
  tools: Schema.optional(Schema.Array(Schema.Unknown))
})

/** Characters a token, on average for English and code with Claude's tokenizer. */
const charactersPerToken = 4

/** The characters a value would cost as the model reads it: strings as they are, the rest as JSON. */
const characters = (value: unknown): number => {
  if (value === undefined || value === null) return 0
  if (typeof value === "string") return value.length
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + characters(item), 0)
  if (typeof value === "object") {
    let sum = 0
    for (const [key, item] of Object.entries(value)) {
      // the block's kind, its cache marks and a thinking block's signature are not read as text
      if (key === "type" || key === "cache_control" || key === "signature") continue
      sum += characters(item)
    }
    return sum
  }
  return String(value).length
}

/** An estimate of a Messages request's input tokens, or what is missing from the request. */
export const countTokens = (body: unknown): Result.Result<{ readonly input_tokens: number }, Invalid> => {
  const decoded = Schema.decodeUnknownResult(Counted)(body, { errors: "first" })
  if (Result.isFailure(decoded)) {
    const missing = ["model", "messages"].find((key) => typeof body !== "object" || body === null || !(key in body))
    return Result.fail(
      missing === undefined
        ? new Invalid({ message: "The body must hold a model and messages, each with a role and content" })
        : new Invalid({ message: `${missing}: Field required`, param: missing })
    )
  }
  const request = decoded.success
  const total = characters(request.system) +
    request.messages.reduce((sum, message) => sum + characters(message.content), 0) +
    characters(request.tools)
  // a message's role and framing cost a few tokens of their own
  const framing = request.messages.length * 3
  return Result.succeed({ input_tokens: Math.max(1, Math.ceil(total / charactersPerToken) + framing) })
}
