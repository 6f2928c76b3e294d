import type * as HttpClient from "@effect/platform/HttpClient"
import * as HttpProvider from "@fallback/backends/HttpProvider"
import * as Backend from "@fallback/core/Backend"
import type * as ConfigFile from "@fallback/core/ConfigFile"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

/**
 * The backends a config names: each provider it defines, over HTTP.
 *
 * @internal
 */
export const backendsOf = (
  document: ConfigFile.Document
): Layer.Layer<Backend.Backends, never, HttpClient.HttpClient> =>
  Layer.unwrapEffect(
    Effect.map(
      Effect.forEach(Object.entries(document.providers), ([name, provider]) =>
        HttpProvider.make(HttpProvider.Provider.make({ name, ...provider, models: provider.models ?? [] }))),
      Backend.Backends.layer
    )
  )
