import type * as LanguageModel from "effect/ai/LanguageModel"
import type * as Prompt from "effect/ai/Prompt"

import type * as Generation from "../../Generation.js"
import * as wire from "./wire.js"

/**
 * How one of OpenAI's wires spells a call: where it goes, the prompt, a tool, the choice of one
 * tool, the JSON Schema an answer must match, what a streamed call adds; and how its answers read.
 *
 * @internal
 */
export interface Spelling extends Pick<wire.Wire, "path" | "parts" | "reader"> {
  readonly prompt: (prompt: Prompt.Prompt) => Record<string, unknown>
  readonly tool: Parameters<typeof wire.toolsOf<unknown>>[1]
  readonly named: (name: string) => unknown
  readonly format: (format: NonNullable<ReturnType<typeof wire.formatOf>>) => Record<string, unknown>
  readonly stream: Record<string, unknown>
  /** The generation options in the wire's words (each sent only where set). */
  readonly generation: (generation: Generation.Options) => Record<string, unknown>
}

const toolChoiceOf = (choice: LanguageModel.ToolChoice<string>, named: (name: string) => unknown): unknown => {
  if (typeof choice === "string") return choice
  if ("tool" in choice) return named(choice.tool)
  return choice.mode ?? "auto"
}

/**
 * One of OpenAI's wires: the key, where there is one, as a bearer token; the body the model, the
 * prompt, the tools and the choice among them, the answer's format, the stream's options.
 *
 * @internal
 */
export const openAiWire = (spelling: Spelling): wire.Wire => ({
  module: "OpenAiLanguageModel",
  path: spelling.path,
  headers: (key, given) => key === undefined ? { ...given } : { ...given, authorization: `Bearer ${key}` },
  body: (options, model, stream, generation) => {
    const tools = wire.toolsOf(options, spelling.tool)
    const format = wire.formatOf(options)
    return {
      model: model.model,
      ...spelling.prompt(options.prompt),
      ...spelling.generation(generation),
      ...(tools.length === 0 ? {} : { tools, tool_choice: toolChoiceOf(options.toolChoice, spelling.named) }),
      ...(format === undefined ? {} : spelling.format(format)),
      ...(stream ? spelling.stream : {})
    }
  },
  parts: spelling.parts,
  reader: spelling.reader
})

/** The entries of `fields` that are set. @internal */
export const set = (fields: Record<string, unknown>): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(fields)) if (value !== undefined) out[name] = value
  return out
}
