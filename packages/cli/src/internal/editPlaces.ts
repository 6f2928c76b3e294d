import type * as Backend from "@fallback/core/Backend"
import * as Place from "@fallback/core/Place"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { choose, enter } from "./editPrompts.js"

/**
 * The models a CLI runs, as far as the page knows; none means the person types a model's name.
 *
 * @internal
 */
export type Models = (cli: string) => ReadonlyArray<string>

/**
 * The models each CLI's backend lists, when the program was given its backends; none otherwise.
 *
 * @internal
 */
export const modelsOf = (backends: Option.Option<Backend.Backends["Type"]>): Models => (cli) =>
  Option.match(Option.flatMap(backends, (backends) => backends.get(cli)), {
    onNone: () => [],
    onSome: (backend) => backend.capabilities.models.map((model) => model.name)
  })

/**
 * What a place can be made of: the CLIs, each CLI's accounts, and its models.
 *
 * @internal
 */
export interface Places {
  readonly clis: ReadonlyArray<string>
  readonly accounts: (cli: string) => ReadonlyArray<string>
  readonly models: Models
}

const typed = (asking: string, prefix: string, colour: boolean) =>
  enter(
    `${asking}: which model of ${prefix}? (type its name)`,
    (model) => Either.mapBoth(Place.parse(`${prefix}/${model}`), { onLeft: (error) => error.reason, onRight: () => model }),
    colour
  )

const model = Effect.fn("Edit.model")(function*(
  asking: string,
  prefix: string,
  listed: ReadonlyArray<string>,
  colour: boolean
) {
  if (listed.length === 0) return yield* typed(asking, prefix, colour)
  const picked = yield* choose(`${asking}: which model of ${prefix}?`, [
    ...listed.map((name) => ({ title: name, value: Option.some(name) })),
    { title: "another model", description: "type its name", value: Option.none<string>() }
  ], colour)
  return Option.isSome(picked) && Option.isNone(picked.value) ? yield* typed(asking, prefix, colour) : Option.flatten(picked)
})

/**
 * Asks for a place: the CLI, then one of its accounts (or none) when it has any, then one of its
 * models, typed when none are listed. None when the person goes back at any of them.
 *
 * @internal
 */
export const choosePlace = Effect.fn("Edit.choosePlace")(function*(asking: string, places: Places, colour: boolean) {
  const cli = yield* choose(`${asking}: which CLI?`, places.clis.map((cli) => ({ title: cli, value: cli })), colour)
  if (Option.isNone(cli)) return Option.none<Place.Place>()
  const names = places.accounts(cli.value)
  const account = names.length === 0 ? Option.some("") : yield* choose(`${asking}: which account of ${cli.value}?`, [
    { title: "no account", value: "" },
    ...names.map((name) => ({ title: name, value: name }))
  ], colour)
  if (Option.isNone(account)) return Option.none<Place.Place>()
  const prefix = account.value === "" ? cli.value : `${cli.value}@${account.value}`
  return Option.flatMap(
    yield* model(asking, prefix, places.models(cli.value), colour),
    (name) => Either.getRight(Place.parse(`${prefix}/${name}`))
  )
})
