import type * as Provider from "@fallback/core/Provider"
import * as LanguageModel from "effect/ai/LanguageModel"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"

import { held } from "../held.js"
import * as anthropic from "./anthropic.js"
import * as openAi from "./openAi.js"

/** A header's value: as written, or read from the variable it names (then held as a secret). */
const headerValue = (value: string | { readonly fromEnv: string }) =>
  typeof value === "string"
    ? Effect.succeed(value)
    : Effect.map(held(Config.Redacted(value.fromEnv)), Redacted.value)

/**
 * The model `model` of a provider the config file defines, as a `LanguageModel` layer: Anthropic
 * Messages or OpenAI-compatible Chat Completions by its kind, its key read by `key`.
 *
 * @internal
 */
export const layer = (
  name: string,
  provider: Provider.Provider,
  model: string,
  key: Config.Config<Redacted.Redacted> | undefined
) =>
  Layer.effect(
    LanguageModel.LanguageModel,
    Effect.gen(function*() {
      const headers: Record<string, string> = {}
      for (const [header, value] of Object.entries(provider.headers ?? {})) headers[header] = yield* headerValue(value)
      return yield* provider.kind === "anthropic-messages"
        ? anthropic.make({
          name,
          model,
          baseUrl: provider.baseUrl,
          apiKey: key,
          headers,
          maxTokens: provider.maxTokens
        })
        : openAi.make({ name, model, api: "chat", baseUrl: provider.baseUrl, apiKey: key ?? null, headers })
    })
  )
