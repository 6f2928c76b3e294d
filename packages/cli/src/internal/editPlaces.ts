import type * as Backend from "@fallback/core/Backend"
import * as Place from "@fallback/core/Place"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Result from "effect/Result"

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
export const modelsOf = (backends: Option.Option<Backend.Service>): Models => (cli) =>
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

/** Why a place may not be the answer to a question (a step to itself), or undefined. */
export type Refuse = (place: Place.Place) => string | undefined

const typed = (asking: string, prefix: string, colour: boolean, refuse: Refuse) =>
  enter(
    `${asking}: which model of ${prefix}? (type its name)`,
    (model) =>
      Result.flatMap(
        Result.mapError(Place.parse(`${prefix}/${model}`), (error) => error.reason),
        (place) => {
          const refused = refuse(place)
          return refused === undefined ? Result.succeed(model) : Result.fail(refused)
        }
      ),
    colour
  )

const model = Effect.fn("Edit.model")(function*(
  asking: string,
  prefix: string,
  listed: ReadonlyArray<string>,
  colour: boolean,
  refuse: Refuse,
  current: string | undefined
) {
  // a model that would make a refused place is not offered
  const offered = listed.filter((name) =>
    Result.match(Place.parse(`${prefix}/${name}`), {
      onFailure: () => true,
      onSuccess: (place) => refuse(place) === undefined
    })
  )
  if (offered.length === 0) return yield* typed(asking, prefix, colour, refuse)
  const picked = yield* choose(
    `${asking}: which model of ${prefix}?`,
    [
      ...offered.map((name) => ({ title: name, value: Option.some(name) })),
      { title: "another model", description: "type its name", value: Option.none<string>() }
    ],
    colour,
    at(offered, current)
  )
  return Option.isSome(picked) && Option.isNone(picked.value)
    ? yield* typed(asking, prefix, colour, refuse)
    : Option.flatten(picked)
})

/** Where `value` is among `choices`, for the cursor to start there; the first when it is not. */
const at = (choices: ReadonlyArray<string>, value: string | undefined) => Math.max(0, choices.indexOf(value ?? ""))

/**
 * Asks for a place: the CLI, then one of its accounts (or none) when it has any, then one of its
 * models, typed when none are listed; a place `refuse` refuses is refused at the model's question.
 * Each question starts at `current`'s answer (the place a row's turns go to now), where it has one.
 * Escape goes back one question; none when the person goes back from the first.
 *
 * @internal
 */
export const choosePlace = Effect.fn("Edit.choosePlace")(function*(
  asking: string,
  places: Places,
  colour: boolean,
  refuse: Refuse = () => undefined,
  current?: Place.Place | undefined
) {
  // Escape at a question goes back to the one before it; at the first, out of the place
  while (true) {
    const cli = yield* choose(
      `${asking}: which CLI?`,
      places.clis.map((cli) => ({ title: cli, value: cli })),
      colour,
      at(places.clis, current?.cli)
    )
    if (Option.isNone(cli)) return Option.none<Place.Place>()
    // the account and model questions start at current's only under its own CLI
    const now = current?.cli === cli.value ? current : undefined
    const names = places.accounts(cli.value)
    while (true) {
      const account = names.length === 0 ?
        Option.some("") :
        yield* choose(
          `${asking}: which account of ${cli.value}?`,
          [
            { title: "no account", value: "" },
            ...names.map((name) => ({ title: name, value: name }))
          ],
          colour,
          at(["", ...names], now?.account)
        )
      if (Option.isNone(account)) break
      const prefix = account.value === "" ? cli.value : `${cli.value}@${account.value}`
      const name = yield* model(asking, prefix, places.models(cli.value), colour, refuse, now?.model)
      if (Option.isSome(name)) return Result.getSuccess(Place.parse(`${prefix}/${name.value}`))
      if (names.length === 0) break
    }
  }
})
