/**
 * The breaker preset's ordered list of models to fail over to, read from
 * `LLM_FALLBACK_MODELS="claude-sonnet-5,gpt-5"` and checked at start against the catalogue of
 * models the configured backends serve, so a typo fails start rather than an outage; and the
 * same check for the model of one place (`fallback point`), against the models its backend serves.
 *
 * @since 0.1.0
 */
import * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { nearest } from "./internal/nearest.js"
import type * as Place from "./Place.js"

/**
 * The variable the list is read from.
 *
 * @since 0.1.0
 * @category constants
 */
export const variable = "LLM_FALLBACK_MODELS"

/**
 * The models the configured backends serve.
 *
 * @since 0.1.0
 * @category services
 */
export class Catalogue extends Context.Service<Catalogue, Catalogue.Service>()("@fallback/core/ModelList/Catalogue") {
  /**
   * A catalogue that is a fixed list.
   *
   * @since 0.1.0
   */
  static readonly layer = (models: ReadonlyArray<string>): Layer.Layer<Catalogue> =>
    Layer.succeed(Catalogue, { models: Effect.succeed(models) })
}

/**
 * @since 0.1.0
 * @category services
 */
export declare namespace Catalogue {
  /**
   * What a {@link Catalogue} gives: the models the configured backends serve.
   *
   * @since 0.1.0
   * @category models
   */
  export interface Service {
    readonly models: Effect.Effect<ReadonlyArray<string>>
  }
}

/**
 * A listed model no configured backend serves; the message offers the nearest names.
 *
 * @since 0.1.0
 * @category errors
 */
export class UnknownModel extends Schema.TaggedError<UnknownModel>("@fallback/core/UnknownModel")("UnknownModel", {
  name: Schema.String,
  nearest: Schema.Array(Schema.String)
}) {
  override get message(): string {
    return `${variable} names "${this.name}", which no configured backend serves` +
      (this.nearest.length > 0 ? ` (did you mean ${this.nearest.join(" or ")}?)` : "")
  }
}

/**
 * A model listed twice.
 *
 * @since 0.1.0
 * @category errors
 */
export class RepeatedModel extends Schema.TaggedError<RepeatedModel>("@fallback/core/RepeatedModel")(
  "RepeatedModel",
  { name: Schema.String }
) {
  override get message(): string {
    return `${variable} lists "${this.name}" twice; one outage would count twice against it and trip its breaker at half the threshold`
  }
}

/**
 * An empty name in the list: two commas in a row, or one at an end.
 *
 * @since 0.1.0
 * @category errors
 */
export class EmptyModelName extends Schema.TaggedError<EmptyModelName>("@fallback/core/EmptyModelName")(
  "EmptyModelName",
  { position: Schema.Int }
) {
  override get message(): string {
    return `${variable} has an empty name at position ${this.position} (two commas in a row, or one at an end)`
  }
}

/**
 * A place whose model its backend does not serve; the message offers the nearest names and says
 * where in the config a model it runs but does not list is added (`addTo`).
 *
 * @since 0.1.0
 * @category errors
 */
export class UnservedModel extends Schema.TaggedError<UnservedModel>("@fallback/core/UnservedModel")("UnservedModel", {
  place: Schema.String,
  model: Schema.String,
  cli: Schema.String,
  nearest: Schema.Array(Schema.String),
  served: Schema.Array(Schema.String),
  addTo: Schema.String
}) {
  override get message(): string {
    const shown = this.served.length > 8 ? `${this.served.slice(0, 8).join(", ")}…` : this.served.join(", ")
    return `${this.place} names the model "${this.model}", which ${this.cli} does not serve` +
      (this.nearest.length > 0 ? ` (did you mean ${this.nearest.join(" or ")}?)` : "") +
      `; it serves ${shown}; if it runs that model all the same, add it to ${this.addTo}`
  }
}

/**
 * The names of `served` nearest a model: those a typo away, else those that are the model under a
 * provider (`anthropic/claude-sonnet-4-5` for `claude-sonnet-4-5`, as opencode writes them).
 */
const nearestModels = (model: string, served: ReadonlyArray<string>): ReadonlyArray<string> => {
  const close = nearest(model, served)
  return close.length > 0 ? close : served.filter((name) => name.endsWith(`/${model}`)).slice(0, 3)
}

/**
 * The place when its backend serves its model, else an {@link UnservedModel}: `served` is what the
 * backend serves, `addTo` where the config adds one it does not list.
 *
 * @since 0.1.0
 * @category guards
 */
export const checkPlace = (
  place: Place.Place,
  served: ReadonlyArray<string>,
  addTo: string
): Result.Result<Place.Place, UnservedModel> =>
  served.includes(place.model) ? Result.succeed(place) : Result.fail(
    new UnservedModel({
      place: String(place),
      model: place.model,
      cli: place.cli,
      nearest: nearestModels(place.model, served),
      served,
      addTo
    })
  )

/**
 * What reading the list can fail with.
 *
 * @since 0.1.0
 * @category errors
 */
export type ModelListError = UnknownModel | RepeatedModel | EmptyModelName

/**
 * Reads a comma-separated list against a catalogue: names in order, spaces around them ignored,
 * an empty text for no failover.
 *
 * @since 0.1.0
 * @category constructors
 */
export const parse = (
  text: string,
  catalogue: ReadonlyArray<string>
): Result.Result<ReadonlyArray<string>, ModelListError> => {
  if (text.trim() === "") return Result.succeed([])
  const names = text.split(",").map((name) => name.trim())
  const seen = new Set<string>()
  for (const [i, name] of names.entries()) {
    if (name === "") return Result.fail(new EmptyModelName({ position: i + 1 }))
    if (seen.has(name)) return Result.fail(new RepeatedModel({ name }))
    if (!catalogue.includes(name)) {
      return Result.fail(new UnknownModel({ name, nearest: nearestModels(name, catalogue) }))
    }
    seen.add(name)
  }
  return Result.succeed(names)
}

/**
 * The list in `LLM_FALLBACK_MODELS`, checked against the {@link Catalogue}; unset or empty is no
 * failover.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromEnv: Effect.Effect<ReadonlyArray<string>, ModelListError | Config.ConfigError, Catalogue> = Effect
  .gen(function*() {
    const text = yield* Config.String(variable).pipe(Config.withDefault(""))
    const catalogue = yield* (yield* Catalogue).models
    return yield* Effect.fromResult(parse(text, catalogue))
  }).pipe(Effect.withSpan("ModelList.fromEnv"))
