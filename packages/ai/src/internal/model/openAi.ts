import * as Config from "effect/Config"

import type * as OpenAiLanguageModel from "../../OpenAiLanguageModel.js"
import * as languageModel from "./languageModel.js"
import { openAiChat } from "./openAiChat.js"
import { openAiResponses } from "./openAiResponses.js"

const wireOf = (options: OpenAiLanguageModel.Options) => options.api === "chat" ? openAiChat : openAiResponses

const optionsOf = (options: OpenAiLanguageModel.Options): languageModel.Options => ({
  model: options.model,
  apiKey: options.apiKey === null ? undefined : options.apiKey ?? Config.Redacted("OPENAI_API_KEY"),
  baseUrl: options.baseUrl ?? "https://api.openai.com/v1",
  headers: options.headers,
  maxTokens: 0,
  name: options.name ?? "openai"
})

/** @internal */
export const make = (options: OpenAiLanguageModel.Options) => languageModel.make(wireOf(options), optionsOf(options))

/** @internal */
export const layer = (options: OpenAiLanguageModel.Options) => languageModel.layer(wireOf(options), optionsOf(options))

/** @internal */
export const layerCompatible = (options: Parameters<typeof OpenAiLanguageModel.layerCompatible>[0]) =>
  layer({ ...options, api: "chat", apiKey: options.apiKey ?? null })
