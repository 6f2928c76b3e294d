/**
 * Responses `custom` tools (Codex's `exec` and `apply_patch`): tools whose input is free text in a
 * format of their own (a grammar, or plain text), not JSON arguments. No other wire has them, so the
 * model is offered each as a function taking `{ input: string }`, and its calls of it are written
 * back as `custom_tool_call` items carrying that string.
 */
import type { ToolDefinition } from "./dialect.js"
import * as o from "./openAi.js"

/** What the model is told of the input's format: free text, and the grammar it follows where there is one. */
const formatOf = (format: unknown, param: string): string => {
  const f = o.optional(format, (v) => o.object(v, param))
  if (f?.type === "grammar") {
    const syntax = o.optional(f.syntax, (s) => o.string(s, `${param}.syntax`)) ?? "lark"
    const definition = o.string(f.definition, `${param}.definition`)
    return `The input is free text (not JSON) following this ${syntax} grammar:\n${definition.trim()}`
  }
  return "The input is free text (not JSON)."
}

/** A custom tool as the function the model is offered. */
export const customToolOf = (tool: o.Json, param: string): ToolDefinition => {
  const description = o.optional(tool.description, (d) => o.string(d, `${param}.description`))
  const format = formatOf(tool.format, `${param}.format`)
  return {
    name: o.string(tool.name, `${param}.name`),
    description: `${
      description === undefined ? "" : `${description}\n\n`
    }Put the tool's whole input in \`input\`. ${format}`,
    parameters: {
      type: "object",
      properties: { input: { type: "string", description: "The tool's input, as free text. " + format } },
      required: ["input"],
      additionalProperties: false
    },
    custom: true
  }
}

/** The names of a call's custom tools. */
export const customNames = (tools: ReadonlyArray<ToolDefinition> | undefined): ReadonlySet<string> =>
  new Set((tools ?? []).flatMap((tool) => tool.custom === true ? [tool.name] : []))

/**
 * A custom call's input from the model's arguments (JSON text): their `input` string; arguments
 * the model shaped otherwise are handed back as it wrote them, as a function call's would be.
 */
export const inputOf = (args: string): string => {
  try {
    const parsed: unknown = JSON.parse(args)
    return o.isObject(parsed) && typeof parsed.input === "string" ? parsed.input : args
  } catch {
    return args
  }
}
