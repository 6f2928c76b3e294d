import * as Config from "effect/Config"

import type * as OpenAiLanguageModel from "../../OpenAiLanguageModel.js"
import * as languageModel from "./languageModel.js"
import { openAiChat } from "./openAiChat.js"
import { openAiResponses } from "./openAiResponses.js"

/** @internal */
export const make = (options: OpenAiLanguageModel.Options) =>
  languageModel.make(options.api === "chat" ? openAiChat : openAiResponses, {
    model: options.model,
    apiKey: options.apiKey === null ? undefined : options.apiKey ?? Config.Redacted("OPENAI_API_KEY"),
    baseUrl: options.baseUrl ?? "https://api.openai.com/v1",
    headers: options.headers,
    maxTokens: 0,
    name: options.name ?? "openai"
  })
