import * as LanguageModel from "@effect/ai/LanguageModel"
import { Backend, ConfigFile, Health, Place, Steps } from "@fallback/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as ExecutionPlan from "effect/ExecutionPlan"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import type * as FallbackAi from "../FallbackAi.js"
import * as AiPlace from "./aiPlace.js"
import * as internal from "./fallbackAi.js"

type Step = ExecutionPlan.ExecutionPlan<any>["steps"][number]

const layerOf = (step: Step): Layer.Layer<LanguageModel.LanguageModel, unknown, unknown> =>
  Layer.isLayer(step.provide) ? step.provide as Layer.Layer<LanguageModel.LanguageModel, unknown, unknown> : Layer.succeedContext(step.provide as Context.Context<LanguageModel.LanguageModel>)

/** @internal */
export class PlanMismatch extends Schema.TaggedError<PlanMismatch>("@fallback/ai/PlanMismatch")("PlanMismatch", {
  steps: Schema.Number,
  places: Schema.Number
}) {
  override get message(): string {
    return `the plan has ${this.steps} steps but ${this.places} places were given to name them; give one place per step, in order`
  }
}

/** @internal */
export const fromExecutionPlan = (
  plan: ExecutionPlan.ExecutionPlan<any>,
  places: ReadonlyArray<string>,
  config: FallbackAi.Config
) =>
  Layer.unwrapScoped(Effect.gen(function*() {
    if (places.length !== plan.steps.length) {
      return yield* new PlanMismatch({ steps: plan.steps.length, places: places.length })
    }
    const parsed = yield* Effect.forEach(places, (place) => Place.parse(place))
    const byPlace = new Map(parsed.map((place, i) => [`${place.cli}/${place.model}`, plan.steps[i]!]))
    const backends = yield* Effect.forEach([...new Set(parsed.map((place) => place.cli))], (cli) =>
      AiPlace.make({ cli, layer: ({ model }) => layerOf(byPlace.get(`${cli}/${model}`)!) }))
    const store = Layer.provideMerge(Steps.Steps.layer, ConfigFile.Store.layerMemory())
    const world = Layer.mergeAll(Backend.Backends.layer(backends), store, Health.Health.layerMemory())
    const written = Effect.gen(function*() {
      const steps = yield* Steps.Steps
      for (let i = 0; i < parsed.length; i++) {
        const attempts = plan.steps[i]!.attempts ?? 1
        if (attempts > 1) yield* steps.retrying(parsed[i]!, attempts - 1, plan.steps[i]!.schedule === undefined ? "none" : undefined)
        if (i > 0) yield* steps.points(parsed[i - 1]!, parsed[i]!)
      }
    })
    return Layer.scoped(
      LanguageModel.LanguageModel,
      Effect.zipRight(written, internal.make(parsed[0]!, config))
    ).pipe(Layer.provide(world))
  }))
