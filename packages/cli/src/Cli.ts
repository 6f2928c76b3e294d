/**
 * The `fallback` command: steps, chains, accounts, waits.
 *
 * @since 0.1.0
 */
import * as Secret from "@fallback/core/Secret"
import * as CliConfig from "effect/cli/CliConfig"
import * as CliError from "effect/cli/CliError"
import * as CliOutput from "effect/cli/CliOutput"
import * as Command from "effect/cli/Command"
import * as GlobalFlag from "effect/cli/GlobalFlag"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

import { commandHelp, docOf, type Entry, type Loaded, optionNames, rootHelp } from "./internal/help.js"
import { didYouMean, type Ran, told } from "./internal/usage.js"

const description = "Keeps an AI agent answering when the place it runs at fails. A place is CLI[@ACCOUNT]/MODEL.\n\n" +
  "  fallback point claude@work/claude-opus-5 codex@key/gpt-5.6-sol\n" +
  "  fallback retry claude@work/claude-opus-5 --tries 3 --policy exponential --timeout 90s\n" +
  "  fallback chain claude@work/claude-opus-5"

/**
 * The command tree with these commands under `fallback`: the one being run, or all of them.
 *
 * @since 0.1.0
 * @category constructors
 */
export const commandOf = (
  commands: readonly [Loaded, ...Array<Loaded>]
): Loaded => Command.make("fallback").pipe(Command.withDescription(description), Command.withSubcommands(commands))

// set by the build from package.json; a run from the sources says so
declare const FALLBACK_VERSION: string | undefined
const version = typeof FALLBACK_VERSION === "string" ? FALLBACK_VERSION : "0.0.0-source"

const entries: ReadonlyArray<Entry> = [
  {
    name: "init",
    usage: "fallback init [--yes] [--cli CLI]… [--endpoint CLI=URL]… [--key VAR]",
    summary: "find your agent CLIs and accounts and write a first config",
    load: () => import("./internal/init.js").then((m) => m.init)
  },
  {
    name: "run",
    usage: "fallback run PLACE [PROMPT] [options]",
    summary: "take one turn at PLACE, with failover along its chain",
    load: () => import("./internal/run.js").then((m) => m.run)
  },
  {
    name: "serve",
    usage: "fallback serve [--port N] [--host ADDR --token-env VAR] [--json] [--no-pass-through] [--demo]",
    summary: "a gateway on 127.0.0.1 for Claude Code, Codex, opencode and SDKs, with failover",
    load: () => import("./internal/serve.js").then((m) => m.serve)
  },
  {
    name: "point",
    usage: "fallback point FROM TO",
    summary: "send FROM's turns to TO when FROM fails",
    load: () => import("./internal/steps.js").then((m) => m.point)
  },
  {
    name: "retry",
    usage: "fallback retry PLACE --tries N [--policy P] [--timeout TIME]",
    summary: "how a failed turn is taken again at PLACE first",
    load: () => import("./internal/steps.js").then((m) => m.retry)
  },
  {
    name: "clear",
    usage: "fallback clear PLACE",
    summary: "remove what is written against PLACE",
    load: () => import("./internal/steps.js").then((m) => m.clear)
  },
  {
    name: "list",
    usage: "fallback list [--json]",
    summary: "one row per place: where its turns go, tries, policy, timeout",
    load: () => import("./internal/steps.js").then((m) => m.list)
  },
  {
    name: "chain",
    usage: "fallback chain PLACE [--json]",
    summary: "the whole walk a failed turn at PLACE takes",
    load: () => import("./internal/steps.js").then((m) => m.chain)
  },
  {
    name: "accounts",
    usage: "fallback accounts [CLI] [--json] | fallback accounts add|remove|order …",
    summary: "each CLI's accounts, in the order a failed turn walks them",
    load: () => import("./internal/accounts.js").then((m) => m.accounts)
  },
  {
    name: "accounts add",
    usage: "fallback accounts add CLI NAME [--config-dir DIR] [--env VAR=fromEnv:OTHER]…",
    summary: "",
    load: () => import("./internal/accounts.js").then((m) => m.add)
  },
  {
    name: "accounts remove",
    usage: "fallback accounts remove CLI NAME",
    summary: "",
    load: () => import("./internal/accounts.js").then((m) => m.remove)
  },
  {
    name: "accounts order",
    usage: "fallback accounts order CLI NAME…",
    summary: "",
    load: () => import("./internal/accounts.js").then((m) => m.order)
  },
  {
    name: "status",
    usage: "fallback status [PLACE] [--json] [--clear | --try]",
    summary: "the health of places; --clear forgets failures, --try tries one now",
    load: () => import("./internal/status.js").then((m) => m.status)
  },
  {
    name: "waits",
    usage: "fallback waits [--policy P] [--tries N] [--json]",
    summary: "the wait ladder of each retry policy",
    load: () => import("./internal/waits.js").then((m) => m.waits)
  },
  {
    name: "doctor",
    usage: "fallback doctor [--json]",
    summary: "check the CLIs, accounts and keys the config needs, with the fix for each problem",
    load: () => import("./internal/doctor.js").then((m) => m.doctor)
  },
  {
    name: "edit",
    usage: "fallback edit",
    summary: "the page: change steps on a terminal",
    load: () => import("./internal/edit.js").then((m) => m.edit)
  },
  {
    name: "demo",
    usage: "fallback demo",
    summary: "a failover against a loopback provider, in seconds; no keys, no network",
    load: () => import("./internal/demo.js").then((m) => m.demo)
  },
  {
    name: "mock",
    usage: "fallback mock [--port N] [--lifetime TIME] [--json]",
    summary: "the demo's loopback provider, playing the faults you ask for, until ctrl+c",
    load: () => import("./internal/mock.js").then((m) => m.mock)
  }
]

/**
 * The command line's own usage error: an unknown command or option, a missing argument, a value
 * that does not read, said with the fix.
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
// effect/cli's own options that mean something here (--wizard and --log-level do not); --version
// is answered here
const builtIn = new Set(["--completions"])
const everywhere = ["--help", "-h", "--config"]

const load = (entry: Entry) => Effect.promise(entry.load)

/** What the arguments ask for: help or the version (printed here), or the command to run (none: the whole tree). */
type Asked =
  | { readonly _tag: "Told" }
  | { readonly _tag: "Run"; readonly top?: Entry; readonly ran?: Ran & { readonly command: Loaded } }

/** Help, or a usage error, when the arguments ask for one; otherwise the command effect/cli runs. */
const before = (args: ReadonlyArray<string>): Effect.Effect<Asked, UsageError, Command.Environment> =>
  Effect.gen(function*() {
    const end = args.indexOf("--")
    const typed = end < 0 ? args : args.slice(0, end)
    if (typed.length === 0 || (typed.length === 1 && helps.has(typed[0]!)) || typed[0] === "help") {
      const asked = typed[0] === "help" ? typed.slice(1) : []
      const entry = entries.find((e) => e.name === asked.join(" ")) ?? entries.find((e) => e.name === asked[0])
      yield* Console.log(
        entry === undefined ? rootHelp(entries, version) : commandHelp(entry, yield* docOf(yield* load(entry)))
      )
      return { _tag: "Told" } as const
    }
    if (typed[0]!.startsWith("-")) {
      const option = typed[0]!.split("=")[0]!
      if (option === "--version") {
        // as @effect/cli 0.77 printed it, a blank line after
        yield* Console.log(`${version}\n`)
        return { _tag: "Told" } as const
      }
      if (builtIn.has(option)) return { _tag: "Run" } as const
      return yield* new UsageError({
        reason: option === "--config"
          ? `--config goes after the command: fallback COMMAND --config FILE; fallback --help lists the commands`
          : `${option} is not an option of fallback; fallback --help lists what is`
      })
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
    const command = yield* load(entry)
    const doc = yield* docOf(command)
    if (typed.some((arg) => helps.has(arg))) {
      yield* Console.log(commandHelp(entry, doc))
      return { _tag: "Told" } as const
    }
    const known = [...optionNames(doc), ...everywhere]
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
    return { _tag: "Run", top: entries.find((e) => e.name === name)!, ran: { entry, command, doc } } as const
  })

// effect/cli presents help where the arguments do not read; `main` tells the error instead
const silent: CliOutput.Presenter = { present: () => Effect.void }

/** Runs `fallback` with these commands under it, on the arguments after `fallback`. */
const runWith = (commands: readonly [Loaded, ...Array<Loaded>], args: ReadonlyArray<string>) =>
  Command.runWith(commandOf(commands), { version, renderErrors: false })(args).pipe(
    Effect.provideService(CliOutput.Presenter, silent),
    Effect.provideService(CliConfig.CliConfig, CliConfig.make({ builtIns: [GlobalFlag.Completions] }))
  )

const tops = entries.filter((e) => !e.name.includes(" "))

/**
 * Runs the command line and tells a person what went wrong in one line on stderr, beginning
 * `fallback:` and saying how to put it right. Only the command being run is loaded.
 *
 * @since 0.1.0
 * @category utils
 */
export const main = (
  argv: ReadonlyArray<string>
): Effect.Effect<void, { readonly message: string }, Command.Environment> =>
  Console.consoleWith((console) =>
    Effect.gen(function*() {
      const asked = yield* before(argv.slice(2))
      if (asked._tag === "Told") return
      const commands = asked.top === undefined
        ? yield* Effect.forEach(tops, load, { concurrency: "unbounded" })
        : [yield* load(asked.top)]
      yield* runWith(commands as unknown as readonly [Loaded, ...Array<Loaded>], argv.slice(2)).pipe(
        Effect.catchIf(
          CliError.isCliError,
          (error) => new UsageError({ reason: told(error._tag === "ShowHelp" ? error.errors : [error], asked.ran) })
        )
      )
    }).pipe(
      Effect.tapError((error) => Console.error(`fallback: ${String(error.message)}`)),
      Effect.provideService(Console.Console, masking(console))
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
