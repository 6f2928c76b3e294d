import type * as Prompt from "effect/ai/Prompt"

interface Part {
  readonly type: string
  readonly text?: string
  readonly name?: string
  readonly params?: unknown
  readonly result?: unknown
  readonly mediaType?: string
  readonly fileName?: string
}

interface Message {
  readonly role: string
  readonly content: string | ReadonlyArray<Part>
}

const said = (part: Part): string => {
  switch (part.type) {
    case "text":
    case "reasoning":
      return part.text ?? ""
    case "file":
      return `[a file${part.fileName === undefined ? "" : ` ${part.fileName}`}${
        part.mediaType === undefined ? "" : ` (${part.mediaType})`
      }]`
    case "tool-call":
      return `[called the tool ${part.name} with ${JSON.stringify(part.params)}]`
    case "tool-result":
      return `[the tool ${part.name} returned ${JSON.stringify(part.result)}]`
    default:
      return ""
  }
}

const lineOf = (message: Message): string => {
  const text = typeof message.content === "string"
    ? message.content
    : message.content.map(said).filter((s) => s !== "").join("\n")
  return `${message.role[0]!.toUpperCase()}${message.role.slice(1)}: ${text}`
}

/**
 * A prompt as text, for a place that takes only text (an agent CLI, an HTTP provider): a single
 * user message as it is, anything more as a transcript with who said what.
 *
 * @internal
 */
export const flatten = (prompt: Prompt.RawInput): string => {
  if (typeof prompt === "string") return prompt
  const messages: ReadonlyArray<Message> = "content" in prompt && !Array.isArray(prompt)
    ? (prompt as Prompt.Prompt).content as unknown as ReadonlyArray<Message>
    : [...(prompt as Iterable<Message>)]
  const only = messages[0]
  if (messages.length === 1 && only !== undefined && only.role === "user") {
    return typeof only.content === "string" ? only.content : only.content.map(said).join("\n")
  }
  return messages.map(lineOf).join("\n\n")
}
