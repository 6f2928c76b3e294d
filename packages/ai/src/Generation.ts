/**
 * How one call generates, beyond its prompt and tools: the answer's length cap, sampling, stop
 * sequences and a thinking budget. Set for a call with {@link with}; fallback's own models
 * (`AnthropicLanguageModel`, `OpenAiLanguageModel`) send what is set in their vendor's words, and
 * a chain carries it to every place the call reaches (a place's own length cap is used where none
 * is set). Unset values are left to the provider.
 *
 * In each vendor's words:
 *
 * | option | Anthropic Messages | OpenAI Chat Completions | OpenAI Responses |
 * | --- | --- | --- | --- |
 * | `maxTokens` | `max_tokens` (else the model's cap) | `max_tokens` | `max_output_tokens` |
 * | `temperature` | `temperature` (not while thinking) | `temperature` | `temperature` |
 * | `topP` | `top_p` (while thinking only from 0.95) | `top_p` | `top_p` |
 * | `stop` | `stop_sequences` | `stop` | not sent |
 * | `thinking` | `thinking: { type: "enabled", budget_tokens }` | `reasoning_effort` | `reasoning: { effort }` |
 *
 * Anthropic wants `max_tokens` above the thinking budget: a cap at or under it is raised to the
 * budget plus the cap. OpenAI's effort is `low` for a budget under 4,096 tokens, `medium` under
 * 16,384, else `high`. An answer asked of Anthropic as an object (a forced tool), or continued
 * after a cut (an assistant prefill), is made without thinking, which Anthropic refuses there.
 *
 * @example
 * ```ts
 * import { LanguageModel } from "effect/ai"
 * import { Generation } from "@fallback/ai"
 *
 * const answer = LanguageModel.generateText({ prompt: "Plan the move." }).pipe(
 *   Generation.with({ maxTokens: 2048, thinking: { budgetTokens: 8000 } })
 * )
 * ```
 *
 * @since 1.1.0
 */
import type * as Context from "effect/Context"
import type * as Effect from "effect/Effect"

import * as internal from "./internal/generation.js"

/**
 * What a call asks of the model's generation. `maxTokens` caps the answer; `thinking` asks for
 * extended thinking with a budget of tokens (Anthropic `thinking.budget_tokens`, an OpenAI
 * reasoning model's effort where the wire has one).
 *
 * @since 1.1.0
 * @category models
 */
export interface Options {
  readonly maxTokens?: number | undefined
  readonly temperature?: number | undefined
  readonly topP?: number | undefined
  readonly stop?: ReadonlyArray<string> | undefined
  readonly thinking?: { readonly budgetTokens: number } | undefined
}

/**
 * The generation options of the calls in the current fiber: none unless set. Read when a call is
 * made, on the caller's fiber, so a `FallbackAi` chain carries it to every place the call reaches.
 *
 * @since 1.1.0
 * @category getters
 */
export const Generation: Context.Reference<Options> = internal.reference

/**
 * Runs `effect` with `options` as its calls' generation options.
 *
 * @since 1.1.0
 * @category combinators
 */
export const with_: {
  (options: Options): <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  <A, E, R>(effect: Effect.Effect<A, E, R>, options: Options): Effect.Effect<A, E, R>
} = internal.with_

export {
  /**
   * @since 1.1.0
   * @category combinators
   */
  with_ as with
}
