import * as Catalogue from "@fallback/backends/Catalogue"
import type * as ConfigFile from "@fallback/core/ConfigFile"
import * as ModelList from "@fallback/core/ModelList"
import type * as Place from "@fallback/core/Place"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"

/** An account that sends its requests elsewhere than its vendor: by an endpoint, or a base URL in its env. */
const redirected = (account: ConfigFile.Account | undefined) =>
  account?.endpoint !== undefined || Object.keys(account?.env ?? {}).some((name) => name.endsWith("BASE_URL"))

/**
 * The models a place's backend is known to serve, and where in the config one more is added; none
 * where nobody knows: a provider with no `models`, a CLI sent to an endpoint (which serves what it
 * serves), a CLI the catalogue has no list for.
 *
 * @internal
 */
export const servedAt = (
  document: ConfigFile.Document,
  place: Place.Place
): Option.Option<{ readonly models: ReadonlyArray<string>; readonly addTo: string }> => {
  const provider = document.providers[place.cli]
  if (provider !== undefined) {
    const models = (provider.models ?? []).map((model) => model.name)
    return models.length === 0 ? Option.none() : Option.some({ models, addTo: `providers.${place.cli}.models` })
  }
  if (!Catalogue.clis.includes(place.cli)) return Option.none()
  const settings = document.clis[place.cli]
  const accounts = document.accounts[place.cli] ?? []
  const walked = place.account === undefined ? accounts : accounts.filter((a) => a.name === place.account)
  if (settings?.endpoint !== undefined || walked.some(redirected)) return Option.none()
  return Option.some({ models: Catalogue.models(place.cli, settings?.models), addTo: `clis.${place.cli}.models` })
}

/**
 * The place when its backend serves its model or nobody knows what it serves, else the model
 * refused with the nearest names.
 *
 * @internal
 */
export const serves = (document: ConfigFile.Document, place: Place.Place) =>
  Option.match(servedAt(document, place), {
    onNone: () => Effect.succeed(place),
    onSome: ({ addTo, models }) => Effect.fromResult(ModelList.checkPlace(place, models, addTo))
  })
