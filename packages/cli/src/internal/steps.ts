import * as ConfigFile from "@fallback/core/ConfigFile"
import * as Place from "@fallback/core/Place"
import * as Policy from "@fallback/core/Policy"
import * as Steps from "@fallback/core/Steps"
import * as Argument from "effect/cli/Argument"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Console from "effect/Console"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { config, editing, json } from "./config.js"
import { formatTime, parseTime } from "./seconds.js"
import { serves } from "./served.js"
import { table } from "./table.js"

const place = (name: string, description: string) => Argument.String(name).pipe(Argument.withDescription(description))

const rowOf = (step: Steps.Step) => ({
  place: Place.format(step.place),
  to: Option.getOrNull(Option.map(step.to, Place.format)),
  tries: Option.getOrNull(Option.map(step.retrying, (r) => r.tries)),
  policy: Option.getOrNull(Option.map(step.retrying, (r) => r.policy)),
  timeout: Option.getOrNull(Option.map(step.retrying, (r) => Duration.toSeconds(r.timeout)))
})

/** @internal */
export const list = Command.make("list", { config, json }, ({ config, json }) =>
  Effect.gen(function*() {
    const rows = (yield* (yield* Steps.Steps).all).map(rowOf)
    if (json) return yield* Console.log(JSON.stringify(rows, null, 2))
    if (rows.length === 0) return yield* Console.log("No steps yet. Write one with: fallback point FROM TO")
    yield* Console.log(table(
      ["PLACE", "TURNS GO TO", "TRIES", "POLICY", "TIMEOUT"],
      rows.map((row) => [
        row.place,
        row.to ?? "-",
        row.tries === null ? "-" : String(row.tries),
        row.policy ?? "-",
        row.timeout === null ? "-" : row.timeout === 0 ? "none" : formatTime(Duration.seconds(row.timeout))
      ])
    ))
  }).pipe(Effect.provide(editing(config)))).pipe(
    Command.withDescription(
      "One row per place: where its turns go, how many tries first, the policy and the timeout.\n\n" +
        "  fallback list\n  fallback list --json"
    )
  )

/** @internal */
export const point = Command.make("point", {
  config,
  from: place("from", "the place whose turns move when it fails"),
  to: place("to", "the place that takes them")
}, ({ config, from, to }) =>
  Effect.gen(function*() {
    const store = yield* ConfigFile.Store
    const document = yield* store.read
    const known = { known: yield* ConfigFile.KnownClis, file: Option.getOrUndefined(store.file) }
    // each place (its CLI, its account), then its model; a step to itself is refused as that below
    for (const written of from === to ? [] : [from, to]) {
      yield* serves(
        document,
        yield* Effect.fromResult(ConfigFile.checkPlace(document, yield* Effect.fromResult(Place.parse(written)), known))
      )
    }
    yield* (yield* Steps.Steps).points(from, to)
    yield* Console.log(`${from} → ${to}`)
  }).pipe(Effect.provide(editing(config)))).pipe(
    Command.withDescription(
      "Sends the turns of FROM to TO when FROM fails (keeping any retrying written on FROM). A model its\n" +
        "place does not serve is refused, with the nearest names: a provider's models, a CLI's catalogue\n" +
        "(add one it runs but does not list under clis.NAME.models).\n\n" +
        "  fallback point claude@work/claude-opus-5 codex@key/gpt-5.6-sol"
    )
  )

const tries = Flag.Int("tries").pipe(
  Flag.withMetavar("N"),
  Flag.withDescription("how many goes beyond the first (0: none)")
)

const policy = Flag.Literals("policy", Policy.names).pipe(
  Flag.withDescription("the waits between tries"),
  Flag.withDefault(Policy.defaultName)
)

const timeout = Flag.String("timeout").pipe(
  Flag.withMetavar("TIME"),
  Flag.withDescription("the longest the trying again may take: 90s, 2m, 0 for no limit"),
  Flag.withDefault("0")
)

/** @internal */
export const retry = Command.make("retry", { config, place: place("place", "the place"), tries, policy, timeout }, (
  { config, place, policy, timeout, tries }
) =>
  Effect.gen(function*() {
    const budget = yield* Effect.fromResult(parseTime(timeout))
    yield* (yield* Steps.Steps).retrying(place, tries, policy, budget)
    const waits = Policy.ladder(policy, tries).map(formatTime).join(", ")
    yield* Console.log(
      `${place}: ${tries} ${tries === 1 ? "try" : "tries"} beyond the first, ${policy}` +
        (tries === 0
          ? ""
          : ` (${policy === "exponential-jitter" ? "up to " : ""}${policy === "none" ? "no waits" : waits})`) +
        (Duration.isZero(budget) ? "" : `, within ${formatTime(budget)}`)
    )
  }).pipe(Effect.provide(editing(config)))).pipe(
    Command.withDescription(
      "Writes how a failed turn at PLACE is taken again before its turns move.\n\n" +
        "  fallback retry claude@work/claude-opus-5 --tries 3 --policy exponential --timeout 90s"
    )
  )

/** @internal */
export const clear = Command.make(
  "clear",
  { config, place: place("place", "the place") },
  ({ config, place }) =>
    Effect.gen(function*() {
      const steps = yield* Steps.Steps
      const had = yield* steps.get(place)
      yield* steps.clear(place)
      yield* Console.log(
        Option.isSome(had)
          ? `${place}: cleared`
          : `${place}: nothing was written against it (to forget its failures: fallback status --clear ${place})`
      )
    }).pipe(Effect.provide(editing(config)))
).pipe(
  Command.withDescription("Removes what is written against PLACE.\n\n  fallback clear claude@work/claude-opus-5")
)

/** @internal */
export const chain = Command.make("chain", { config, json, place: place("place", "where the walk starts") }, (
  { config, json, place }
) =>
  Effect.gen(function*() {
    const walk = (yield* (yield* Steps.Steps).chain(place)).map(Place.format)
    yield* Console.log(json ? JSON.stringify(walk) : walk.join(" → "))
  }).pipe(Effect.provide(editing(config)))).pipe(
    Command.withDescription(
      "The whole walk a failed turn at PLACE takes, ending at the second sight of a place.\n\n" +
        "  fallback chain claude@work/claude-opus-5"
    )
  )
