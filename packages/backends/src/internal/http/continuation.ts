/**
 * The assistant-prefill continuation over HTTP: which models take one, and what a refused one is.
 * Anthropic Messages continues from a final assistant message natively; an OpenAI-compatible
 * server does where its config says so (`continues: true` on the provider or the model); OpenAI's
 * own API never does.
 */
import * as Failure from "@fallback/core/Failure"
import type * as Place from "@fallback/core/Place"
import * as Effect from "effect/Effect"
import type { Provider } from "../../HttpProvider.js"
import { refused, type Response } from "./response.js"

/** OpenAI's own API, which answers a final assistant message as a new turn, not a continuation. */
const official = (baseUrl: string): boolean => /^https?:\/\/api\.openai\.com(?::\d+)?(?:\/|$)/i.test(baseUrl)

/**
 * Whether the provider's models continue by default, and whether `model` does.
 *
 * @internal
 */
export const continuation = (provider: Provider) => {
  const never = official(provider.baseUrl)
  const byDefault = !never && (provider.continues ?? provider.kind === "anthropic-messages")
  const said = new Map(provider.models.map((model) => [model.name, model.continues] as const))
  return {
    byDefault,
    of: (model: string): boolean | undefined => never ? (said.has(model) ? false : undefined) : said.get(model),
    at: (model: string): boolean => !never && (said.get(model) ?? byDefault)
  }
}

/**
 * Whether a prompt asks to continue an answer.
 *
 * @internal
 */
export const continuing = (prefill: string | undefined): boolean => prefill !== undefined && prefill !== ""

/**
 * A continuation refused: by the model's capability before any request, or by the server (a 400
 * or 422 that says nothing of another kind). Its own kind, so the failure it was to answer stays
 * on top.
 *
 * @internal
 */
export const refusedContinuation = (place: Place.Place, said: string): Failure.Failure =>
  new Failure.ArgumentsRefused({ place, said: Failure.said(said), argument: "prefill" })

/**
 * The failure a response that is not 2xx is; to a request that continued an answer, a refusal
 * that is no other kind is the continuation refused.
 *
 * @internal
 */
export const refusal = (
  place: Place.Place,
  response: Response,
  continued: boolean
): Effect.Effect<never, Failure.Failure> =>
  continued && (response.status === 400 || response.status === 422)
    ? Effect.mapError(
      refused(place, response),
      (failure) => failure._tag === "Unknown" ? refusedContinuation(place, failure.said) : failure
    )
    : refused(place, response)
