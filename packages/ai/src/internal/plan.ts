import * as Backend from "@fallback/core/Backend"
import * as ConfigFile from "@fallback/core/ConfigFile"
import * as Health from "@fallback/core/Health"
import * as Place from "@fallback/core/Place"
import type * as Policy from "@fallback/core/Policy"
import * as Steps from "@fallback/core/Steps"
import * as LanguageModel from "effect/ai/LanguageModel"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as ExecutionPlan from "effect/ExecutionPlan"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"

import type * as FallbackAi from "../FallbackAi.js"
import * as AiPlace from "./aiPlace.js"
import * as internal from "./fallbackAi.js"

type Step = ExecutionPlan.ExecutionPlan<any>["steps"][number]

const layerOf = (step: Step): Layer.Layer<LanguageModel.LanguageModel, unknown, unknown> =>
  Layer.isLayer(step.provide)
    ? step.provide as Layer.Layer<LanguageModel.LanguageModel, unknown, unknown>
    : Layer.succeedContext(step.provide as Context.Context<LanguageModel.LanguageModel>)

/** @internal */
export class PlanMismatch extends Schema.TaggedError<PlanMismatch>("@fallback/ai/PlanMismatch")("PlanMismatch", {
  steps: Schema.Number,
  places: Schema.Number
}) {
  override get message(): string {
    return `the plan has ${this.steps} steps but ${this.places} places were given to name them; give one place per step, in order`
  }
}

/**
 * The chain through `places`, in order, run by `backends`, with its steps and health in memory;
 * `tries[i]`, where given, is how many more goes place `i` gets. Steps in memory hold no file, so
 * writing them fails with nothing the caller could meet.
 *
 * @internal
 */
export const chain = (
  places: ReadonlyArray<Place.Place>,
  backends: ReadonlyArray<Backend.Backend>,
  config: FallbackAi.Config,
  tries: ReadonlyArray<{ readonly tries: number; readonly policy: Policy.Name | undefined }> = []
) => {
  const store = Layer.provideMerge(Steps.Steps.layer, ConfigFile.Store.layerMemory())
  const world = Layer.mergeAll(Backend.Backends.layer(backends), store, Health.Health.layerMemory())
  const written = Effect.gen(function*() {
    const steps = yield* Steps.Steps
    for (let i = 0; i < places.length; i++) {
      const retrying = tries[i]
      if (retrying !== undefined && retrying.tries > 0) {
        yield* steps.retrying(places[i]!, retrying.tries, retrying.policy)
      }
      if (i > 0) yield* steps.points(places[i - 1]!, places[i]!)
    }
  }).pipe(Effect.orDie)
  return Layer.effect(LanguageModel.LanguageModel, Effect.andThen(written, internal.make(places[0]!, config))).pipe(
    Layer.provide(Layer.fresh(world))
  )
}

/** @internal */
export const fromExecutionPlan = (
  plan: ExecutionPlan.ExecutionPlan<any>,
  places: ReadonlyArray<string>,
  config: FallbackAi.Config
) =>
  Layer.unwrap(Effect.gen(function*() {
    if (places.length !== plan.steps.length) {
      return yield* new PlanMismatch({ steps: plan.steps.length, places: places.length })
    }
    const parsed: Array<Place.Place> = []
    for (const place of places) parsed.push(yield* Effect.fromResult(Place.parse(place)))
    const byPlace = new Map(parsed.map((place, i) => [`${place.cli}/${place.model}`, plan.steps[i]!]))
    const backends = yield* Effect.forEach([...new Set(parsed.map((place) => place.cli))], (cli) =>
      AiPlace.make({ cli, layer: ({ model }) => layerOf(byPlace.get(`${cli}/${model}`)!) }))
    return chain(
      parsed,
      backends,
      config,
      plan.steps.map((step) => ({
        tries: (step.attempts ?? 1) - 1,
        policy: step.schedule === undefined ? "none" as const : undefined
      }))
    )
  }))
