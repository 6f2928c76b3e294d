import * as Policy from "@fallback/core/Policy"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Console from "effect/Console"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { json } from "./config.js"
import { formatTime } from "./seconds.js"
import { table } from "./table.js"

const policy = Flag.Literals("policy", Policy.names).pipe(
  Flag.withDescription("one policy (default: all six)"),
  Flag.optional
)

const tries = Flag.Int("tries").pipe(
  Flag.withMetavar("N"),
  Flag.withDescription(`how many goes beyond the first (0 to ${Policy.mostTries})`),
  Flag.withDefault(6)
)

/** @internal */
export const waits = Command.make(
  "waits",
  { json, policy, tries },
  ({ json, policy, tries }) =>
    Effect.gen(function*() {
      if (!Number.isSafeInteger(tries) || tries < 0 || tries > Policy.mostTries) {
        return yield* (new Policy.InvalidRetrying({ reason: `tries is ${String(tries).slice(0, 24)}` }))
      }
      const names = Option.match(policy, { onNone: () => Policy.names, onSome: (name) => [name] })
      const ladders = names.map((name) => ({
        policy: name,
        waits: Policy.ladder(name, tries).map(Duration.toSeconds),
        jittered: name === "exponential-jitter"
      }))
      if (json) return yield* Console.log(JSON.stringify(ladders, null, 2))
      yield* Console.log(table(
        ["POLICY", `WAITS BEFORE THE 2ND, 3RD… TRY (${tries} ${tries === 1 ? "TRY" : "TRIES"})`],
        ladders.map(({ jittered, policy, waits }) => [
          policy,
          policy === "none"
            ? "no wait at all"
            : `${jittered ? "anywhere up to " : ""}${waits.map((s) => formatTime(Duration.seconds(s))).join(", ")}`
        ])
      ))
    })
).pipe(
  Command.withDescription(
    "The wait ladder of each policy: the first wait is one second, no wait is over a minute.\n\n" +
      "  fallback waits\n  fallback waits --policy fibonacci --tries 10"
  )
)
