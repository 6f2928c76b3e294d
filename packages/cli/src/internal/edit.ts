import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as Backend from "@fallback/core/Backend"
import * as ConfigFile from "@fallback/core/ConfigFile"
import * as Place from "@fallback/core/Place"
import * as Policy from "@fallback/core/Policy"
import * as Steps from "@fallback/core/Steps"
import * as Command from "effect/cli/Command"
import * as Config from "effect/Config"
import * as Console from "effect/Console"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as Stdio from "effect/Stdio"

import { backendsOf } from "./backends.js"
import { config, editing } from "./config.js"
import { choosePlace, modelsOf, type Places } from "./editPlaces.js"
import { asked, choose, enter, Intent, page as pagePrompt } from "./editPrompts.js"
import { chainOf, triesOf } from "./editRender.js"
import * as State from "./editState.js"
import { formatTime } from "./seconds.js"

/**
 * `fallback edit` run where nobody can press a key.
 *
 * @internal
 */
export class NotATerminal extends Schema.TaggedError<NotATerminal>("@fallback/cli/NotATerminal")("NotATerminal", {}) {
  override get message(): string {
    return "fallback edit needs a terminal; from a script, write steps with fallback point, retry and clear"
  }
}

const waitsOf = (name: Policy.Name) =>
  name === "none"
    ? "no waits"
    : `${name === "exponential-jitter" ? "up to " : ""}${Policy.ladder(name, 4).map(formatTime).join(", ")}…`

const notItself = (from: Place.Place) => (place: Place.Place) =>
  Place.format(place) === Place.format(from)
    ? `${Place.format(from)} cannot fall back to itself; pick another`
    : undefined

/** Where a step's turns go, asked; none when the person goes back from the first question. */
const targetOf = (step: Steps.Step, places: Places, colour: boolean) =>
  choosePlace(
    `Where the turns of ${Place.format(step.place)} go`,
    places,
    colour,
    notItself(step.place),
    // a row reopened starts at the place its turns go to now
    Option.getOrUndefined(step.to)
  )

const target = Effect.fn("Edit.target")(function*(page: State.Page, step: Steps.Step, places: Places, colour: boolean) {
  const to = yield* targetOf(step, places, colour)
  if (Option.isNone(to)) return page
  return State.put(page, { ...step, to }, `${Place.format(step.place)}: turns go to ${Place.format(to.value)}`)
})

const tries = Effect.fn("Edit.tries")(function*(page: State.Page, step: Steps.Step, colour: boolean) {
  const at = Place.format(step.place)
  const now = Option.getOrUndefined(step.retrying)
  const count = yield* enter(
    `How many tries beyond the first at ${at}? (0 for none)`,
    (text) =>
      /^\d+$/.test(text) && Number(text) <= 100
        ? Result.succeed(Number(text))
        : Result.fail("a whole number, 0 to 100"),
    colour,
    now === undefined ? "" : String(now.tries)
  )
  if (Option.isNone(count)) return page
  if (count.value === 0) return State.put(page, { ...step, retrying: Option.none() }, `${at}: no tries again`)
  const current = Policy.names.indexOf(now?.policy ?? Policy.defaultName)
  const policy = yield* choose(
    `How long to wait between the tries at ${at}?`,
    Policy.names.map((name) => ({ title: name, description: waitsOf(name), value: name })),
    colour,
    current
  )
  if (Option.isNone(policy)) return page
  const retrying = new Policy.Retrying({
    tries: count.value,
    policy: policy.value,
    timeout: now?.timeout ?? Duration.zero
  })
  return State.put(
    page,
    { ...step, retrying: Option.some(retrying) },
    `${at}: ${count.value} ${count.value === 1 ? "try" : "tries"} beyond the first, ${policy.value}`
  )
})

const open = Effect.fn("Edit.open")(function*(page: State.Page, step: Steps.Step, places: Places, colour: boolean) {
  const at = Place.format(step.place)
  const [count, policy] = triesOf(step)
  const choice = yield* choose(at, [
    { title: "where its turns go", description: chainOf(page, step), value: "to" as const },
    {
      title: "how many tries first",
      description: count === "-" ? "none" : `${count}, ${policy}`,
      value: "tries" as const
    },
    { title: "remove this step", value: "remove" as const }
  ], colour)
  if (Option.isNone(choice)) return page
  switch (choice.value) {
    case "to":
      return yield* target(page, step, places, colour)
    case "tries":
      return yield* tries(page, step, colour)
    case "remove":
      return State.remove(page, step.place, `${at}: removed`)
  }
})

const add = Effect.fn("Edit.add")(function*(page: State.Page, places: Places, colour: boolean) {
  // Escape at the second place goes back to the first
  while (true) {
    const from = yield* choosePlace("The place that cannot run", places, colour)
    if (Option.isNone(from)) return page
    const had = page.rows.find((row) => Place.format(row.place) === Place.format(from.value))
    const step = { place: from.value, to: Option.none(), retrying: had === undefined ? Option.none() : had.retrying }
    const to = yield* targetOf(step, places, colour)
    if (Option.isSome(to)) {
      return State.put(page, { ...step, to }, `${Place.format(from.value)}: turns go to ${Place.format(to.value)}`)
    }
  }
})

const save = Effect.fn("Edit.save")(function*(page: State.Page) {
  const store = yield* ConfigFile.Store
  const changes = State.changes(page)
  if (changes.length === 0) {
    yield* Console.log(`Nothing to save; ${page.file} is as it was.`)
    return Option.none<State.Page>()
  }
  return yield* store.modify(State.land(page)).pipe(
    Effect.andThen(Console.log(`Saved to ${page.file}: ${changes.join(", ")}`)),
    Effect.as(Option.none<State.Page>()),
    Effect.catch((error) => Effect.succeedSome(State.tell(page, `Not saved: ${error.message}`)))
  )
})

const leave = Effect.fn("Edit.leave")(function*(page: State.Page, colour: boolean) {
  const changes = State.changes(page)
  if (changes.length === 0) return Option.none<State.Page>()
  const choice = yield* choose(`${changes.length} unsaved: ${changes.join(", ")}. Save before leaving?`, [
    { title: "save and leave", value: "save" as const },
    { title: "leave without saving", value: "discard" as const },
    { title: "stay on the page", value: "stay" as const }
  ], colour)
  if (Option.isNone(choice) || choice.value === "stay") return Option.some(page)
  if (choice.value === "save") return yield* save(page)
  yield* Console.log(`Left without saving; ${page.file} is as it was.`)
  return Option.none<State.Page>()
})

const colourful = Config.option(Config.String("NO_COLOR")).pipe(
  Config.map(Option.match({ onNone: () => true, onSome: (value) => value === "" })),
  Effect.orElseSucceed(() => true)
)

/**
 * `fallback edit`: the page.
 *
 * @internal
 */
export const edit = Command.make("edit", { config }, ({ config }) =>
  Effect.gen(function*() {
    if (!(yield* (yield* Stdio.Stdio).stdinIsTerminal)) return yield* new NotATerminal()
    const store = yield* ConfigFile.Store
    const document = yield* store.read
    const colour = yield* colourful
    const backends = yield* Effect.serviceOption(Backend.Backends).pipe(
      Effect.flatMap(Option.match({
        onSome: (given) => Effect.succeed(given),
        onNone: () =>
          Effect.provide(
            Backend.Backends,
            backendsOf(document).pipe(Layer.provide(NodeHttpClient.layerUndici))
          )
      }))
    )
    const places: Places = {
      clis: [...yield* ConfigFile.KnownClis, ...Object.keys(document.providers)],
      accounts: (cli) => (document.accounts[cli] ?? []).map((account) => account.name),
      models: modelsOf(Option.some(backends))
    }
    let page = State.make(Option.getOrElse(store.file, () => "memory"), yield* (yield* Steps.Steps).all)
    while (true) {
      const shown = yield* asked(pagePrompt(page, colour))
      if (Option.isNone(shown)) {
        return yield* Console.log(`The input ended; nothing was saved and ${page.file} is as it was.`)
      }
      const [at, intent] = shown.value
      const next: Option.Option<State.Page> = yield* Intent.$match(intent, {
        Open: ({ step }) => Effect.asSome(open(at, step, places, colour)),
        Add: () => Effect.asSome(add(at, places, colour)),
        Save: () => save(at),
        Leave: () => leave(at, colour)
      })
      if (Option.isNone(next)) return
      page = next.value
    }
  }).pipe(Effect.provide(editing(config)))).pipe(
    Command.withDescription(
      "The page: one row per place, with add and save rows below. a (or the add row) writes a step: the place " +
        "that cannot run, then the place that takes its turns. Enter on a row changes where its turns go, how " +
        "many tries first, or removes it. Nothing lands until the save row, shift+enter or ctrl+j, or leaving " +
        "(Escape, q, ctrl+c) and choosing to save.\n\n" +
        "  fallback edit\n  fallback edit --config ./fallback.json"
    )
  )
