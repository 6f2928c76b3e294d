/**
 * How one call generates, beyond its prompt and tools: the answer's length cap, sampling, stop
 * sequences and a thinking budget. Set for a call with {@link with}; fallback's own models
 * (`AnthropicLanguageModel`, `OpenAiLanguageModel`) send what is set in their vendor's words, and
 * a chain carries it to every place the call reaches (a place's own length cap is used where none
 * is set). Unset values are left to the provider.
 *
 * @since 1.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"

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
 * The generation options of the calls in the current fiber: none unless set.
 *
 * @since 1.1.0
 * @category references
 */
export class Generation extends Context.Reference<Options>("@fallback/ai/Generation", {
  defaultValue: (): Options => ({})
}) {}

/**
 * Runs `effect` with `options` as its calls' generation options.
 *
 * @since 1.1.0
 * @category combinators
 */
export const with_: {
  (options: Options): <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  <A, E, R>(effect: Effect.Effect<A, E, R>, options: Options): Effect.Effect<A, E, R>
} = ((...args: Array<any>) =>
  args.length === 1
    ? (effect: Effect.Effect<any, any, any>) => Effect.provideService(effect, Generation, args[0])
    : Effect.provideService(args[0], Generation, args[1])) as any

export {
  /**
   * @since 1.1.0
   * @category combinators
   */
  with_ as with
}
