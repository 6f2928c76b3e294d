/**
 * A chain of places as a `LanguageModel`. Code that calls `LanguageModel.generateText`,
 * `generateObject` or `streamText` fails over without change when it is given
 * {@link layer} instead of one provider's model:
 *
 * - the whole `Prompt` (system message, turns, tool calls and results, files) and the call's
 *   options (toolkit, schema, tool choice, and the caller's `Generation` options) reach each
 *   `effect/ai` place as they were given; a place that takes only text (an agent CLI, an HTTP
 *   provider) gets the conversation as text;
 * - `generateText` and `generateObject` are whole replies: nothing reaches the caller before the
 *   answer is whole, so a place whose answer breaks off (a cut, a stall, an error inside it) is
 *   failed over like one that never answered, its partial answer discarded;
 * - `streamText` commits at the first content part (opening parts, empty deltas are none): a
 *   failure before it moves on unseen; one after it continues at the next place from what was
 *   delivered where that place continues an answer (`AiPlace.Registration.continues`, a
 *   provider's `continues`), and otherwise, or inside a tool call, fails with an `AiError` whose
 *   reason notes what was delivered (`metadata.fallback.delivered`) beside the failure that cut
 *   it (a refused continuation is noted as `continuation`, never in its place);
 * - the answering place and its model are on the response-metadata part the answer commits with
 *   (before its content) and on the finish part, with the usage ({@link Moved}), and on the
 *   call's span (`FallbackAi.generateText`, … with `gen_ai.response.model`, `gen_ai.usage.*`,
 *   `fallback.place`, `fallback.from`);
 * - answers per kind, account chains, the breaker, cooldowns, the budget and notices all apply as
 *   for any agent; where a call was answered at another place than the one it started at, the
 *   finish part's `metadata.fallback` says so ({@link Moved}, typed on `Response.FinishPartMetadata`);
 * - a chain that gives up fails with an `AiError` whose reason is the last place's own (its secrets
 *   masked) or the failure's (`AiFailure.toReason`), the failure kind noted on it
 *   (`reason.metadata.fallback.kind`), so `Effect.catchReason("AiError", "RateLimitError", …)`
 *   catches it; an error from the caller's own tool handlers passes through unchanged without
 *   moving the call;
 * - a chain written in code ({@link chain}, {@link fromExecutionPlan}) keeps its steps and health
 *   in memory, and its type carries no config-file errors.
 *
 * @since 0.1.0
 */
import type * as Agent from "@fallback/core/Agent"
import type * as Backend from "@fallback/core/Backend"
import * as Place from "@fallback/core/Place"
import type * as Settings from "@fallback/core/Settings"
import * as LanguageModel from "effect/ai/LanguageModel"
import * as Effect from "effect/Effect"
import type * as ExecutionPlan from "effect/ExecutionPlan"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"

import * as internal from "./internal/fallbackAi.js"
import * as plan from "./internal/plan.js"

/**
 * Where a call was answered: the `metadata.fallback` of the finish part and of the
 * `response-metadata` part (typed on `Response.FinishPartMetadata` and
 * `Response.ResponseMetadataPartMetadata`), on every answer. `place` answered, `from` is where the
 * call started (`moved` when they differ), `model` the model that answered as its provider said it
 * (where it said); a streamed answer cut after content reached the caller and continued at
 * `place` from what was delivered says so in `continued` (the place it was cut at, and how many
 * characters of it had been delivered). The finish part's usage is the answering place's.
 *
 * A streamed answer's `response-metadata` part comes when the answer commits to a place, before
 * any of its content (a place that speaks text only, which gives none, has one made for it before
 * its text), so a caller that writes the answer on (a gateway) knows the answering place before
 * it writes a byte of content; a continuation at another place after a cut brings that place's
 * own, with `continued`. A whole answer's `response-metadata` part, where it has one, carries the
 * same note as its finish part.
 *
 * @since 0.1.0
 * @category models
 */
export interface Moved {
  readonly place: string
  readonly from: string
  readonly moved: boolean
  readonly model?: string | undefined
  readonly continued?: { readonly from: string; readonly delivered: number } | undefined
}

declare module "effect/ai/Response" {
  interface FinishPartMetadata {
    readonly fallback?: Moved | undefined
  }
  interface ResponseMetadataPartMetadata {
    readonly fallback?: Moved | undefined
  }
}

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
) => Effect.Effect<
  LanguageModel.LanguageModel,
  Place.InvalidPlace | Agent.SettingsRefused,
  Scope.Scope | Agent.Requirements
> = (
  place,
  config = {}
) => internal.make(place, config)

/**
 * The chain from `place` as the `LanguageModel` layer.
 *
 * @example
 * ```ts
 * import { LanguageModel } from "effect/ai"
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
): Layer.Layer<LanguageModel.LanguageModel, Place.InvalidPlace | Agent.SettingsRefused, Agent.Requirements> =>
  Layer.effect(LanguageModel.LanguageModel, make(place, config))

/**
 * A chain written in code: `places` in order, each pointing to the next, run by `backends` (made
 * with `AiPlace.make`, `HttpProvider.make`, a CLI backend…), with the chain's steps and health kept
 * in memory. The layer for programs that have no config file; one that has uses {@link layer}
 * with the config's steps, accounts and health.
 *
 * @example
 * ```ts
 * import { AiPlace, AnthropicLanguageModel, FallbackAi, OpenAiLanguageModel } from "@fallback/ai"
 *
 * const anthropic = AiPlace.make({
 *   cli: "anthropic",
 *   key: "ANTHROPIC_API_KEY",
 *   layer: ({ model, key }) => AnthropicLanguageModel.layer({ model, apiKey: key })
 * })
 * const openai = AiPlace.make({
 *   cli: "openai",
 *   key: "OPENAI_API_KEY",
 *   layer: ({ model, key }) => OpenAiLanguageModel.layer({ model, apiKey: key })
 * })
 * const model = FallbackAi.chain(["anthropic/claude-opus-5", "openai/gpt-5.5"], [anthropic, openai])
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const chain = <E, R>(
  places: readonly [string, ...Array<string>],
  backends: ReadonlyArray<Effect.Effect<Backend.Backend, E, R>>,
  config: Config = {}
): Layer.Layer<
  LanguageModel.LanguageModel,
  Place.InvalidPlace | Agent.SettingsRefused | E,
  R
> =>
  Layer.unwrap(
    Effect.map(
      Effect.all([Effect.forEach(places, (place) => Effect.fromResult(Place.parse(place))), Effect.all(backends)]),
      ([parsed, made]) => plan.chain(parsed, made, config)
    )
  )

/**
 * A plan's places were not one per step.
 *
 * @since 0.1.0
 * @category errors
 */
export const PlanMismatch: typeof plan.PlanMismatch = plan.PlanMismatch

/**
 * @since 0.1.0
 * @category errors
 */
export type PlanMismatch = plan.PlanMismatch

/**
 * An `ExecutionPlan` whose steps provide `LanguageModel`, as a chain of places: step `i` becomes
 * the place `places[i]` (its layer built when a call first reaches it, and held), each step points
 * to the next, and a step's `attempts` become the place's tries (with no waits when the step had
 * no schedule, else the default policy: a `Schedule` is not carried over). Where the plan's
 * `while` decided whether to go on, the answers per failure kind decide here. Health is kept in
 * memory; notices go where `Notices` says (stderr unless given).
 *
 * @example
 * ```ts
 * import { LanguageModel } from "effect/ai"
 * import { FallbackAi } from "@fallback/ai"
 * import * as Effect from "effect/Effect"
 * import * as ExecutionPlan from "effect/ExecutionPlan"
 * import * as Layer from "effect/Layer"
 *
 * const migrate = (claude: Layer.Layer<LanguageModel.LanguageModel>, gpt: Layer.Layer<LanguageModel.LanguageModel>) => {
 *   const plan = ExecutionPlan.make({ provide: claude, attempts: 2 }, { provide: gpt })
 *   const program = LanguageModel.generateText({ prompt: "hello" })
 *   const before = Effect.withExecutionPlan(program, plan)
 *   const after = Effect.provide(program, FallbackAi.fromExecutionPlan(plan, ["anthropic/claude-opus-5", "openai/gpt-5.5"]))
 *   return { before, after }
 * }
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromExecutionPlan = <Types extends { provides: any; input: any; error: any; requirements: any }>(
  executionPlan: ExecutionPlan.ExecutionPlan<Types>,
  places: ReadonlyArray<string>,
  config: Config = {}
): Layer.Layer<
  LanguageModel.LanguageModel,
  Place.InvalidPlace | PlanMismatch | Agent.SettingsRefused,
  Exclude<Types["requirements"], LanguageModel.LanguageModel>
> => plan.fromExecutionPlan(executionPlan, places, config) as any
