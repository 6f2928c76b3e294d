import * as Context from "effect/Context"
import * as Effect from "effect/Effect"

import type * as Generation from "../Generation.js"

/** @internal */
export const reference: Context.Reference<Generation.Options> = Context.Reference<Generation.Options>(
  "@fallback/ai/Generation",
  { defaultValue: () => ({}) }
)

/** @internal */
export const with_ = ((...args: Array<any>) =>
  args.length === 1
    ? (effect: Effect.Effect<any, any, any>) => Effect.provideService(effect, reference, args[0])
    : Effect.provideService(args[0], reference, args[1])) as any

/**
 * A thinking budget as the effort an OpenAI reasoning model is asked for: under 4,096 tokens
 * `low`, under 16,384 `medium`, else `high`.
 *
 * @internal
 */
export const effortOf = (budgetTokens: number): "low" | "medium" | "high" =>
  budgetTokens < 4096 ? "low" : budgetTokens < 16384 ? "medium" : "high"
