/**
 * Reads an OpenAI Responses request (`POST /v1/responses`, as Codex and the `openai` SDK send it)
 * into a {@link Call}. The gateway keeps no responses, so a request must carry its whole input
 * (`store: false`, as Codex sends it); function and custom tools are offered (a custom tool as a function
 * of `{ input }`, see responsesCustom.ts), others (web search, local shell) are left out, so the model is
 * offered only what the gateway can hand back. Codex at its default model sends its tools in an
 * `additional_tools` input item: read as tools, not a message.
 */
import * as Prompt from "effect/ai/Prompt"

import { fileOf } from "./chatRead.js"
import type { Call, ToolDefinition } from "./dialect.js"
import * as o from "./openAi.js"
import { customToolOf } from "./responsesCustom.js"

type Assistant = Prompt.AssistantMessagePart

const contentOf = (content: unknown, param: string): Array<Prompt.TextPart | Prompt.FilePart> => {
  if (typeof content === "string") return [Prompt.textPart({ text: content })]
  return o.array(content, param).map((part, i) => {
    const at = `${param}[${i}]`
    const p = o.object(part, at)
    switch (p.type) {
      case "input_text":
      case "output_text":
        return Prompt.textPart({ text: o.string(p.text, `${at}.text`) })
      case "refusal":
        return Prompt.textPart({ text: o.string(p.refusal, `${at}.refusal`) })
      case "input_image":
        if (typeof p.image_url !== "string") {
          return o.invalid(`${at} must carry image_url: the gateway keeps no uploaded files`, `${at}.image_url`)
        }
        return fileOf(p.image_url, `${at}.image_url`)
      case "input_file":
        if (typeof p.file_data !== "string") {
          return o.invalid(`${at} must carry file_data: the gateway keeps no uploaded files`, `${at}.file_data`)
        }
        return fileOf(p.file_data, `${at}.file_data`, o.optional(p.filename, (f) => o.string(f, `${at}.filename`)))
      default:
        return o.invalid(`${at} is a ${String(p.type)} part, which the gateway does not carry`, `${at}.type`)
    }
  })
}

const textOf = (parts: ReadonlyArray<Prompt.TextPart | Prompt.FilePart>, param: string): string =>
  parts.map((p) => p.type === "text" ? p.text : o.invalid(`${param} must be text`, param)).join("")

const summaryOf = (item: o.Json, at: string): string =>
  (o.optional(item.summary, (s) => o.array(s, `${at}.summary`)) ?? [])
    .map((s, j) => o.string(o.object(s, `${at}.summary[${j}]`).text, `${at}.summary[${j}].text`))
    .join("\n\n")

/** The input as messages: assistant items (text, reasoning, calls) in a row make one assistant message. */
const messagesOf = (input: unknown, instructions: string | undefined): Array<Prompt.Message> => {
  const out: Array<Prompt.Message> = instructions === undefined ? [] : [Prompt.systemMessage({ content: instructions })]
  const names = new Map<string, string>()
  const assistant = (part: Assistant) => {
    const last = out.at(-1)
    if (last?.role === "assistant") out[out.length - 1] = Prompt.assistantMessage({ content: [...last.content, part] })
    else out.push(Prompt.assistantMessage({ content: [part] }))
  }
  const result = (id: string, output: unknown, at: string) => {
    const part = Prompt.toolResultPart({
      id,
      name: names.get(id) ?? "",
      isFailure: false,
      result: typeof output === "string" ? output : textOf(contentOf(output, at), at),
      providerExecuted: false
    })
    const last = out.at(-1)
    if (last?.role === "tool") out[out.length - 1] = Prompt.toolMessage({ content: [...last.content, part] })
    else out.push(Prompt.toolMessage({ content: [part] }))
  }
  if (typeof input === "string") return [...out, Prompt.userMessage({ content: [Prompt.textPart({ text: input })] })]
  o.array(input, "input").forEach((value, i) => {
    const at = `input[${i}]`
    const item = o.object(value, at)
    const type = item.type ?? "message"
    switch (type) {
      case "message": {
        const content = contentOf(item.content, `${at}.content`)
        if (item.role === "user") out.push(Prompt.userMessage({ content }))
        else if (item.role === "system" || item.role === "developer") {
          out.push(Prompt.systemMessage({ content: textOf(content, `${at}.content`) }))
        } else if (item.role === "assistant") content.forEach(assistant)
        else o.invalid(`${at}.role must be user, system, developer or assistant`, `${at}.role`)
        break
      }
      case "function_call":
      case "custom_tool_call": {
        const id = o.string(item.call_id, `${at}.call_id`)
        const name = o.string(item.name, `${at}.name`)
        names.set(id, name)
        const params = type === "function_call"
          ? o.argumentsOf(item.arguments ?? "", `${at}.arguments`)
          : { input: o.string(item.input, `${at}.input`) }
        assistant(Prompt.toolCallPart({ id, name, params, providerExecuted: false }))
        break
      }
      case "function_call_output":
      case "custom_tool_call_output":
        result(o.string(item.call_id, `${at}.call_id`), item.output ?? "", `${at}.output`)
        break
      case "reasoning": {
        const text = summaryOf(item, at)
        const encrypted = o.optional(item.encrypted_content, (e) => o.string(e, `${at}.encrypted_content`))
        if (text === "" && encrypted === undefined) break
        // The encrypted reasoning is OpenAI's to read: kept under `openai`, marked as OpenAI's family.
        const openai = {
          ...(typeof item.id === "string" ? { itemId: item.id } : {}),
          ...(encrypted === undefined ? {} : { encryptedContent: encrypted })
        }
        assistant(Prompt.reasoningPart({ text, options: { ...o.family, openai } }))
        break
      }
      case "additional_tools":
        // its tools are read with the request's (toolsOf); it says nothing to the model itself
        break
      case "item_reference":
        return o.invalid(`${at} refers to a stored item: the gateway stores none, send the item itself`, `${at}.type`)
      default:
        return o.invalid(`${at} is a ${String(type)} item, which the gateway does not carry`, `${at}.type`)
    }
  })
  if (out.length === 0) o.invalid("input must not be empty", "input")
  return out
}

/** The function and custom tools of a list: at its top, or in the `functions` namespace, whose tools are called by bare name. */
const functionsOf = (value: unknown, param: string, nested = false): Array<ToolDefinition> =>
  o.array(value, param).flatMap((tool, i) => {
    const at = `${param}[${i}]`
    const t = o.object(tool, at)
    if (t.type === "function") return [o.toolOf(t, at)]
    if (t.type === "custom") return [customToolOf(t, at)]
    return !nested && t.type === "namespace" && t.name === "functions" ? functionsOf(t.tools, `${at}.tools`, true) : []
  })

/**
 * The tools offered: `tools`' functions and custom tools, then those of the input's `additional_tools` items (Codex
 * at its default model sends its tools there, in namespaces, and no `tools`). Other namespaces' tools (called with
 * their namespace) are left out, as are other kinds in `tools`: the gateway hands back function and custom calls only.
 */
const toolsOf = (value: unknown, input: unknown): Array<ToolDefinition> => {
  const given = o.optional(value, (t) => functionsOf(t, "tools")) ?? []
  const additional = Array.isArray(input)
    ? input.flatMap((item, i) =>
      o.isObject(item) && item.type === "additional_tools" ? functionsOf(item.tools, `input[${i}].tools`) : []
    )
    : []
  const byName = new Map<string, ToolDefinition>()
  for (const tool of [...given, ...additional]) if (!byName.has(tool.name)) byName.set(tool.name, tool)
  return [...byName.values()]
}

const named = (choice: o.Json): string | undefined =>
  (choice.type === "function" || choice.type === "custom") && typeof choice.name === "string" ? choice.name : undefined

const toolChoiceOf = (value: unknown, tools: ReadonlyArray<ToolDefinition>) => {
  if (!o.isObject(value) || value.type !== "allowed_tools") return o.toolChoiceOf(value, tools, named)
  const oneOf = o.array(value.tools, "tool_choice.tools").flatMap((t) =>
    o.isObject(t) && typeof t.name === "string" ? [t.name] : []
  )
  const mode = value.mode === "required" ? "required" as const : "auto" as const
  return { mode, oneOf: oneOf.filter((name) => tools.some((tool) => tool.name === name)) }
}

/** Reads a Responses request body. */
export const read = o.reading((body): Call => {
  const model = o.string(body.model, "model")
  if (body.previous_response_id !== undefined && body.previous_response_id !== null) {
    o.invalid(
      "previous_response_id cannot be followed: the gateway stores no responses. Send the whole input with store: false",
      "previous_response_id"
    )
  }
  if (body.conversation !== undefined && body.conversation !== null) {
    o.invalid(
      "conversation cannot be followed: the gateway stores no conversations. Send the whole input",
      "conversation"
    )
  }
  const format = o.isObject(body.text) && o.isObject(body.text.format) ? body.text.format : undefined
  if (format !== undefined && format.type !== "text") {
    o.invalid(
      `text.format ${String(format.type)} is not carried by the gateway: ask for the JSON in the prompt`,
      "text.format"
    )
  }
  o.boolean(body.store, "store")
  const instructions = o.optional(body.instructions, (i) => o.string(i, "instructions"))
  const tools = toolsOf(body.tools, body.input)
  const reasoning = o.optional(body.reasoning, (r) => o.object(r, "reasoning"))
  return {
    wire: "openai-responses",
    model,
    prompt: Prompt.fromMessages(messagesOf(body.input, instructions)),
    tools,
    toolChoice: toolChoiceOf(body.tool_choice, tools),
    stream: o.boolean(body.stream, "stream"),
    generation: o.generationOf({
      maxTokens: o.number(body.max_output_tokens, "max_output_tokens"),
      temperature: o.number(body.temperature, "temperature"),
      topP: o.number(body.top_p, "top_p"),
      thinking: o.thinkingOf(reasoning?.effort, "reasoning.effort")
    }),
    conversation: o.optional(body.prompt_cache_key, (k) => o.string(k, "prompt_cache_key"))
  }
})
