/**
 * Reads an OpenAI Chat Completions request (`POST /v1/chat/completions`, as opencode and the
 * `openai` SDK send it) into a {@link Call}.
 */
import * as Prompt from "effect/ai/Prompt"

import type { Call } from "./dialect.js"
import * as o from "./openAi.js"

/** The calls whose client asked for the usage chunk (`stream_options.include_usage`), by their prompt. */
export const usageAsked = new WeakSet<Prompt.Prompt>()

const textOf = (content: unknown, param: string): string =>
  typeof content === "string"
    ? content
    : o.array(content, param).map((part, i) => {
      const p = o.object(part, `${param}[${i}]`)
      if (p.type === "text") return o.string(p.text, `${param}[${i}].text`)
      if (p.type === "refusal") return o.string(p.refusal, `${param}[${i}].refusal`)
      return o.invalid(`${param}[${i}] must be a text part`, `${param}[${i}].type`)
    }).join("")

/** A `data:` URL as its media type and base64 data; any other URL as itself. */
export const fileOf = (url: string, param: string, fileName?: string): Prompt.FilePart => {
  const data = /^data:([^;,]+)(?:;[^,]*)?;base64,(.*)$/s.exec(url)
  if (data !== null) return Prompt.filePart({ mediaType: data[1]!, data: data[2]!, fileName })
  try {
    return Prompt.filePart({ mediaType: "image/*", data: new URL(url), fileName })
  } catch {
    return o.invalid(`${param} must be an http(s) or data: URL`, param)
  }
}

const userParts = (content: unknown, param: string): Array<Prompt.UserMessagePart> => {
  if (typeof content === "string") return [Prompt.textPart({ text: content })]
  return o.array(content, param).map((part, i) => {
    const at = `${param}[${i}]`
    const p = o.object(part, at)
    switch (p.type) {
      case "text":
        return Prompt.textPart({ text: o.string(p.text, `${at}.text`) })
      case "image_url":
        return fileOf(
          o.string(o.object(p.image_url, `${at}.image_url`).url, `${at}.image_url.url`),
          `${at}.image_url.url`
        )
      case "file": {
        const file = o.object(p.file, `${at}.file`)
        if (typeof file.file_data !== "string") {
          return o.invalid(`${at}.file must carry file_data: the gateway keeps no uploaded files`, `${at}.file`)
        }
        return fileOf(
          file.file_data,
          `${at}.file.file_data`,
          o.optional(file.filename, (f) => o.string(f, `${at}.file.filename`))
        )
      }
      default:
        return o.invalid(`${at} is a ${String(p.type)} part, which the gateway does not carry`, `${at}.type`)
    }
  })
}

const messagesOf = (value: unknown): Array<Prompt.Message> => {
  const messages = o.array(value, "messages")
  if (messages.length === 0) o.invalid("messages must not be empty", "messages")
  const names = new Map<string, string>()
  const out: Array<Prompt.Message> = []
  messages.forEach((item, i) => {
    const at = `messages[${i}]`
    const m = o.object(item, at)
    switch (m.role) {
      case "system":
      case "developer":
        out.push(Prompt.systemMessage({ content: textOf(m.content, `${at}.content`) }))
        break
      case "user":
        out.push(Prompt.userMessage({ content: userParts(m.content, `${at}.content`) }))
        break
      case "assistant": {
        const content: Array<Prompt.AssistantMessagePart> = []
        const reasoning = m.reasoning_content ?? m.reasoning
        if (typeof reasoning === "string" && reasoning !== "") {
          content.push(Prompt.reasoningPart({ text: reasoning, options: o.family }))
        }
        const text = o.optional(m.content, (c) => textOf(c, `${at}.content`))
        if (text !== undefined && text !== "") content.push(Prompt.textPart({ text }))
        const calls = o.optional(m.tool_calls, (c) => o.array(c, `${at}.tool_calls`)) ?? []
        calls.forEach((call, j) => {
          const c = o.object(call, `${at}.tool_calls[${j}]`)
          const fn = o.object(c.function, `${at}.tool_calls[${j}].function`)
          const id = o.string(c.id, `${at}.tool_calls[${j}].id`)
          const name = o.string(fn.name, `${at}.tool_calls[${j}].function.name`)
          names.set(id, name)
          const params = o.argumentsOf(fn.arguments ?? "", `${at}.tool_calls[${j}].function.arguments`)
          content.push(Prompt.toolCallPart({ id, name, params, providerExecuted: false }))
        })
        out.push(Prompt.assistantMessage({ content }))
        break
      }
      case "tool": {
        const id = o.string(m.tool_call_id, `${at}.tool_call_id`)
        const part = Prompt.toolResultPart({
          id,
          name: names.get(id) ?? "",
          isFailure: false,
          result: textOf(m.content ?? "", `${at}.content`),
          providerExecuted: false
        })
        const last = out.at(-1)
        if (last?.role === "tool") out[out.length - 1] = Prompt.toolMessage({ content: [...last.content, part] })
        else out.push(Prompt.toolMessage({ content: [part] }))
        break
      }
      default:
        o.invalid(`${at}.role must be system, developer, user, assistant or tool`, `${at}.role`)
    }
  })
  return out
}

const toolsOf = (value: unknown) =>
  (o.optional(value, (t) => o.array(t, "tools")) ?? []).map((tool, i) => {
    const t = o.object(tool, `tools[${i}]`)
    if (t.type !== "function") {
      return o.invalid(`tools[${i}] is a ${String(t.type)} tool: only function tools are carried`, `tools[${i}].type`)
    }
    return o.toolOf(o.object(t.function, `tools[${i}].function`), `tools[${i}].function`)
  })

const named = (choice: o.Json): string | undefined =>
  choice.type === "function" && o.isObject(choice.function) && typeof choice.function.name === "string"
    ? choice.function.name
    : undefined

/** Reads a Chat Completions request body. */
export const read = o.reading((body): Call => {
  const model = o.string(body.model, "model")
  if (o.number(body.n, "n") !== undefined && body.n !== 1) {
    o.invalid("n must be 1: the gateway answers with one choice", "n")
  }
  const format = o.optional(body.response_format, (f) => o.object(f, "response_format"))
  if (format !== undefined && format.type !== "text") {
    o.invalid(
      `response_format ${String(format.type)} is not carried by the gateway: ask for the JSON in the prompt`,
      "response_format"
    )
  }
  const tools = toolsOf(body.tools)
  const stream = o.boolean(body.stream, "stream")
  const options = o.optional(body.stream_options, (s) => o.object(s, "stream_options"))
  const prompt = Prompt.fromMessages(messagesOf(body.messages))
  if (stream && o.boolean(options?.include_usage, "stream_options.include_usage")) usageAsked.add(prompt)
  o.optional(body.user, (u) => o.string(u, "user"))
  return {
    wire: "openai-chat",
    model,
    prompt,
    tools,
    toolChoice: o.toolChoiceOf(body.tool_choice, tools, named),
    stream,
    generation: o.generationOf({
      maxTokens: o.number(body.max_completion_tokens, "max_completion_tokens") ??
        o.number(body.max_tokens, "max_tokens"),
      temperature: o.number(body.temperature, "temperature"),
      topP: o.number(body.top_p, "top_p"),
      stop: o.stopOf(body.stop, "stop"),
      thinking: o.thinkingOf(body.reasoning_effort, "reasoning_effort")
    }),
    conversation: o.optional(body.prompt_cache_key, (k) => o.string(k, "prompt_cache_key"))
  }
})
