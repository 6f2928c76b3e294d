/**
 * The `fallback` command: steps, chains, accounts, waits.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as ValidationError from "@effect/cli/ValidationError"
import * as Secret from "@fallback/core/Secret"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

import { accounts, add, order, remove } from "./internal/accounts.js"
import { demo } from "./internal/demo.js"
import { doctor } from "./internal/doctor.js"
import { edit } from "./internal/edit.js"
import { commandHelp, type Entry, optionNames, rootHelp } from "./internal/help.js"
import { init } from "./internal/init.js"
import { didYouMean } from "./internal/nearest.js"
import { run as runTurn } from "./internal/run.js"
import { status } from "./internal/status.js"
import { chain, clear, list, point, retry } from "./internal/steps.js"
import { waits } from "./internal/waits.js"

/**
 * The command tree.
 *
 * @since 0.1.0
 * @category constructors
 */
export const command = Command.make("fallback").pipe(
  Command.withDescription(
    "Keeps an AI agent answering when the place it runs at fails. A place is CLI[@ACCOUNT]/MODEL.\n\n" +
      "  fallback point claude@work/claude-opus-5 codex@key/gpt-5.6-sol\n" +
      "  fallback retry claude@work/claude-opus-5 --tries 3 --policy exponential --timeout 90s\n" +
      "  fallback chain claude@work/claude-opus-5"
  ),
  Command.withSubcommands([
    init,
    list,
    point,
    retry,
    clear,
    chain,
    accounts,
    waits,
    runTurn,
    status,
    doctor,
    edit,
    demo
  ])
)

const version = "0.1.0"

const entries: ReadonlyArray<Entry> = [
  {
    name: "init",
    usage: "fallback init [--yes] [--cli CLI]… [--endpoint CLI=URL]… [--key VAR]",
    summary: "find your agent CLIs and accounts and write a first config",
    command: init
  },
  {
    name: "run",
    usage: "fallback run PLACE [PROMPT] [options]",
    summary: "take one turn at PLACE, with failover along its chain",
    command: runTurn
  },
  {
    name: "point",
    usage: "fallback point FROM TO",
    summary: "send FROM's turns to TO when FROM fails",
    command: point
  },
  {
    name: "retry",
    usage: "fallback retry PLACE --tries N [--policy P] [--timeout TIME]",
    summary: "how a failed turn is taken again at PLACE first",
    command: retry
  },
  { name: "clear", usage: "fallback clear PLACE", summary: "remove what is written against PLACE", command: clear },
  {
    name: "list",
    usage: "fallback list [--json]",
    summary: "one row per place: where its turns go, tries, policy, timeout",
    command: list
  },
  {
    name: "chain",
    usage: "fallback chain PLACE [--json]",
    summary: "the whole walk a failed turn at PLACE takes",
    command: chain
  },
  {
    name: "accounts",
    usage: "fallback accounts [CLI] [--json] | fallback accounts add|remove|order …",
    summary: "each CLI's accounts, in the order a failed turn walks them",
    command: accounts
  },
  {
    name: "accounts add",
    usage: "fallback accounts add CLI NAME [--config-dir DIR] [--env VAR=fromEnv:OTHER]…",
    summary: "",
    command: add
  },
  { name: "accounts remove", usage: "fallback accounts remove CLI NAME", summary: "", command: remove },
  { name: "accounts order", usage: "fallback accounts order CLI NAME…", summary: "", command: order },
  {
    name: "status",
    usage: "fallback status [PLACE] [--json] [--clear | --try]",
    summary: "the health of places; --clear forgets failures, --try tries one now",
    command: status
  },
  {
    name: "waits",
    usage: "fallback waits [--policy P] [--tries N] [--json]",
    summary: "the wait ladder of each retry policy",
    command: waits
  },
  {
    name: "doctor",
    usage: "fallback doctor [--json]",
    summary: "check the CLIs, accounts and keys the config needs, with the fix for each problem",
    command: doctor
  },
  { name: "edit", usage: "fallback edit", summary: "the page: change steps on a terminal", command: edit },
  {
    name: "demo",
    usage: "fallback demo",
    summary: "a failover against a loopback provider, in seconds; no keys, no network",
    command: demo
  }
]

/**
 * The command line as @effect/cli runs it, behind the help and the checks `main` makes first.
 *
 * @since 0.1.0
 * @category utils
 */
export const run = Command.run(command, { name: "fallback", version })

/**
 * The command line's own usage error: an unknown command or option, said with the nearest name.
 *
 * @since 0.1.0
 * @category errors
 */
export class UsageError extends Schema.TaggedError<UsageError>("@fallback/cli/UsageError")("UsageError", {
  reason: Schema.String
}) {
  override get message(): string {
    return this.reason
  }
}

const helps = new Set(["-h", "--help"])
// @effect/cli's own options that mean nothing here
const unused = new Set(["--wizard", "--log-level"])
const everywhere = ["--help", "-h", "--config"]

/** Help, or a usage error, when the arguments ask for one; otherwise nothing and @effect/cli runs. */
const before = (args: ReadonlyArray<string>): Effect.Effect<boolean, UsageError> =>
  Effect.gen(function*() {
    const end = args.indexOf("--")
    const typed = end < 0 ? args : args.slice(0, end)
    if (typed.length === 0 || (typed.length === 1 && helps.has(typed[0]!)) || typed[0] === "help") {
      const asked = typed[0] === "help" ? typed.slice(1) : []
      const entry = entries.find((e) => e.name === asked.join(" ")) ?? entries.find((e) => e.name === asked[0])
      yield* Console.log(entry === undefined ? rootHelp(entries, version) : commandHelp(entry))
      return true
    }
    if (typed[0]!.startsWith("-")) {
      if (unused.has(typed[0]!)) {
        return yield* new UsageError({
          reason: `${typed[0]} is not an option of fallback; fallback --help lists what is`
        })
      }
      return false
    }
    const name = typed[0]!
    const top = entries.filter((e) => !e.name.includes(" ")).map((e) => e.name)
    if (!top.includes(name)) {
      return yield* new UsageError({
        reason: `${name} is not a command${didYouMean(name, top)}; fallback --help lists them`
      })
    }
    const sub = name === "accounts" && typed[1] !== undefined && !typed[1].startsWith("-")
      ? entries.find((e) => e.name === `accounts ${typed[1]}`)
      : undefined
    const entry = sub ?? entries.find((e) => e.name === name)!
    if (typed.some((arg) => helps.has(arg))) {
      yield* Console.log(commandHelp(entry))
      return true
    }
    const known = [...optionNames(entry), ...everywhere]
    for (const arg of typed.slice(sub === undefined ? 1 : 2)) {
      if (!arg.startsWith("-") || arg === "-" || /^-\d/.test(arg)) continue
      const option = arg.split("=")[0]!
      if (!known.includes(option)) {
        return yield* new UsageError({
          reason: `${option} is not an option of fallback ${entry.name}${
            didYouMean(option, known.filter((k) => k.startsWith("--")))
          }; fallback ${entry.name} --help lists them`
        })
      }
    }
    return false
  })

/**
 * Runs the command line and tells a person what went wrong in one line on stderr (the command
 * line's own usage errors are already told by it).
 *
 * @since 0.1.0
 * @category utils
 */
export const main = (argv: ReadonlyArray<string>) =>
  Effect.consoleWith((console) =>
    Effect.flatMap(before(argv.slice(2)), (done) => done ? Effect.void : run(argv)).pipe(
      Effect.tapError((error) =>
        ValidationError.isValidationError(error) ? Effect.void : Console.error(`fallback: ${String(error.message)}`)
      ),
      Effect.withConsole(masking(console))
    )
  )

/**
 * A console that masks secrets in all it prints, the command line's own usage errors included; on
 * stderr it also writes control characters as escapes (an argument echoed back cannot drive the
 * terminal) and cuts what it echoes to a readable length.
 */
const masking = (console: Console.Console): Console.Console => {
  const masked = (items: ReadonlyArray<unknown>) =>
    items.map((item) => typeof item === "string" ? Secret.mask(item) : item)
  const told = (items: ReadonlyArray<unknown>) =>
    masked(items).map((item) =>
      typeof item === "string"
        ? (item.length > 500 ? `${item.slice(0, 500)}… (${item.length - 500} more characters)` : item).replace(
          /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/g,
          (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`
        )
        : item
    )
  return {
    ...console,
    log: (...items) => console.log(...masked(items)),
    error: (...items) => console.error(...told(items)),
    warn: (...items) => console.warn(...masked(items)),
    info: (...items) => console.info(...masked(items))
  }
}
