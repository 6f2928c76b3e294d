/**
 * A chain of places as a `LanguageModel`. Code that calls `LanguageModel.generateText`,
 * `generateObject` or `streamText` fails over without change when it is given
 * {@link layer} instead of one provider's model:
 *
 * - the whole `Prompt` (system message, turns, tool calls and results, files) and the call's
 *   options (toolkit, schema, tool choice) reach each `@effect/ai` place as they were given; a
 *   place that takes only text (an agent CLI, an HTTP provider) gets the conversation as text;
 * - `streamText` commits at the first content part: a failure before it moves on, one after it
 *   surfaces with what was delivered, and the next place gets no request;
 * - answers per kind, account chains, the breaker, cooldowns, the budget and notices all apply as
 *   for any agent; where a call was answered at another place than the one it started at, the
 *   finish part's `metadata.fallback` says so (`{ place, from, moved: true }`);
 * - a chain that gives up fails with the last place's own `AiError` (its secrets masked), and an
 *   error from the caller's own tool handlers passes through unchanged without moving the call.
 *
 * @since 0.1.0
 */
import * as LanguageModel from "@effect/ai/LanguageModel"
import type { Agent, Place, Settings } from "@fallback/core"
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import * as internal from "./internal/fallbackAi.js"

/**
 * How the chain's agent is made: the settings that travel to every stand-in, and the agent's
 * options (answers, first byte, budget…), as for `Agent.make`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Config {
  readonly settings?: Settings.Settings | undefined
  readonly options?: Partial<Agent.Options> | undefined
}

/**
 * A `LanguageModel` that answers through the chain from `place`, held for the scope. Nothing is
 * built until a call reaches a place.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: (
  place: Place.Place | string,
  config?: Config
) => Effect.Effect<LanguageModel.Service, Place.InvalidPlace, Scope.Scope | Agent.Requirements> = (place, config = {}) =>
  internal.make(place, config)

/**
 * The chain from `place` as the `LanguageModel` layer.
 *
 * @example
 * ```ts
 * import { LanguageModel } from "@effect/ai"
 * import { FallbackAi } from "@fallback/ai"
 * import * as Effect from "effect/Effect"
 *
 * const program = LanguageModel.generateText({ prompt: "What is a place?" })
 * const chained = Effect.provide(program, FallbackAi.layer("anthropic/claude-opus-5"))
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  place: Place.Place | string,
  config: Config = {}
): Layer.Layer<LanguageModel.LanguageModel, Place.InvalidPlace, Agent.Requirements> =>
  Layer.scoped(LanguageModel.LanguageModel, make(place, config))
