import * as Nearest from "@fallback/core/Nearest"
import * as Place from "@fallback/core/Place"
import type * as Provider from "@fallback/core/Provider"
import * as Result from "effect/Result"

import type { Failed } from "../wire/dialect.js"

/** What a gateway routes: its providers by name and its aliases (`"*"`: any model nothing else routes). @internal */
export interface Routes {
  readonly providers: Readonly<Record<string, Provider.Provider>>
  readonly aliases: Readonly<Record<string, string>>
}

/** Every place a provider lists, as `name/MODEL`. @internal */
export const listed = (routes: Routes): ReadonlyArray<string> =>
  Object.entries(routes.providers).flatMap(([name, provider]) =>
    (provider.models ?? []).map((model) => `${name}/${model.name}`)
  )

const notFound = (model: string, routes: Routes): Failed => {
  const known = [
    ...Object.keys(routes.aliases).filter((name) => name !== catchAll),
    ...listed(routes),
    ...Object.values(routes.providers).flatMap((provider) => (provider.models ?? []).map((m) => m.name))
  ]
  const near = Nearest.nearest(model, new Set(known))
  const providers = Object.keys(routes.providers).join(", ")
  return {
    status: 404,
    kind: "not_found",
    message: `the model "${model}" is not an alias or a place this gateway routes (places are PROVIDER/MODEL, ` +
      `its providers ${providers === "" ? "none" : providers})` +
      (near.length === 0 ? "" : `; did you mean ${near.map((name) => `"${name}"`).join(" or ")}?`)
  }
}

/** The alias of any model name nothing else routes (a client's default model the config does not name). */
const catchAll = "*"

const aliased = (name: string, alias: string): Result.Result<Place.Place, Failed> =>
  Result.mapError(Place.parse(alias), (invalid) => ({
    status: 500,
    kind: "api_error" as const,
    message: `the alias "${name}" names "${alias}", which is not a place: ${invalid.message}`
  }))

/**
 * The place a model names: an alias's place, else a place at one of the providers, else the first
 * provider that lists a model of that name, else the `"*"` alias's place; else 404 with the nearest names.
 *
 * @internal
 */
export const placeOf = (model: string, routes: Routes): Result.Result<Place.Place, Failed> => {
  const alias = Object.hasOwn(routes.aliases, model) ? routes.aliases[model] : undefined
  if (alias !== undefined) return aliased(model, alias)
  const parsed = Place.parse(model)
  if (Result.isSuccess(parsed) && routes.providers[parsed.success.cli] !== undefined) {
    return Result.succeed(parsed.success)
  }
  for (const [name, provider] of Object.entries(routes.providers)) {
    if (provider.models?.some((listed) => listed.name === model)) {
      return Result.succeed(new Place.Place({ cli: name, model }))
    }
  }
  const any = Object.hasOwn(routes.aliases, catchAll) ? routes.aliases[catchAll] : undefined
  return any === undefined ? Result.fail(notFound(model, routes)) : aliased(catchAll, any)
}
