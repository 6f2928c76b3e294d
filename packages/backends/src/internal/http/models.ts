/**
 * A provider's models as its backend's capabilities say them: the config's, with the context
 * windows the provider's own model list gives (`GET /v1/models`) where the config says none.
 */
import type * as Backend from "@fallback/core/Backend"
import type { Provider } from "../../HttpProvider.js"
import { parseData } from "./wire.js"

/** A model of a provider's list: its name and, where the entry says it, its context window. */
interface Listed {
  readonly name: string
  readonly contextWindow?: number | undefined
}

/** The fields servers put a model's window in: OpenRouter, Groq, vLLM, LM Studio, Anthropic. */
const windowFields = ["context_length", "context_window", "max_context_length", "max_model_len", "max_input_tokens"]

const windowOf = (entry: Record<string, any>): number | undefined => {
  for (const field of windowFields) {
    const value = Number(entry[field] ?? entry.top_provider?.[field])
    if (Number.isInteger(value) && value > 0) return value
  }
  return undefined
}

/**
 * The models a model list names (`{ data: [{ id, context_length, … }] }`, OpenAI's and
 * Anthropic's shape, or `{ models: […] }`); none where it is no such list.
 *
 * @internal
 */
export const listed = (body: string): ReadonlyArray<Listed> => {
  const data = parseData(body)
  const entries: unknown = data?.data ?? data?.models
  if (!Array.isArray(entries)) return []
  return entries.flatMap((entry): Array<Listed> => {
    if (typeof entry !== "object" || entry === null) return []
    const name = entry.id ?? entry.name
    if (typeof name !== "string" || name === "") return []
    const contextWindow = windowOf(entry)
    return [contextWindow === undefined ? { name } : { name, contextWindow }]
  })
}

/**
 * The config's models with the list's windows where the config gives none, then the listed
 * models the config does not name.
 *
 * @internal
 */
export const withListed = (models: Provider["models"], list: ReadonlyArray<Listed>): Provider["models"] => {
  const windows = new Map(list.map((model) => [model.name, model.contextWindow] as const))
  const named = new Set(models.map((model) => model.name))
  return [
    ...models.map((model) => {
      const window = model.contextWindow ?? windows.get(model.name)
      return window === undefined ? model : { ...model, contextWindow: window }
    }),
    ...list.filter((model) => !named.has(model.name)).map((model) =>
      model.contextWindow === undefined
        ? { name: model.name }
        : { name: model.name, contextWindow: model.contextWindow }
    )
  ] as Provider["models"]
}

/**
 * The models as capabilities say them: name, context window, and whether it continues, where said.
 *
 * @internal
 */
export const capable = (
  models: Provider["models"],
  continues: (model: string) => boolean | undefined
): ReadonlyArray<Backend.Model> =>
  models.map((model) => {
    const said = continues(model.name)
    return { name: model.name, contextWindow: model.contextWindow, ...(said === undefined ? {} : { continues: said }) }
  })
