import * as ConfigFile from "@fallback/core/ConfigFile"
import * as Command from "effect/cli/Command"
import * as Prompt from "effect/cli/Prompt"
import * as Config from "effect/Config"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Option from "effect/Option"
import * as Path from "effect/Path"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as Stdio from "effect/Stdio"
import type * as Terminal from "effect/Terminal"

import { agentClis } from "./backends.js"
import { besideConfig, config, editing, repeated, text, toggle } from "./config.js"
import { binaryOf, examine, versionOf } from "./doctor.js"
import { signedIn, signInLine, signInOf } from "./signIn.js"

/**
 * What `init` knows of each CLI: its own config folder (the login a plain run uses), the prefix of
 * other folders that are accounts of it (`~/.claude-work`), the variables that hold its keys, and
 * the variable that gives a key to it.
 */
const looks: ReadonlyArray<{
  readonly cli: string
  readonly login: string
  readonly others: string
  readonly keys: ReadonlyArray<string>
}> = [
  { cli: "claude", login: ".claude", others: ".claude-", keys: ["ANTHROPIC_API_KEY"] },
  { cli: "codex", login: ".codex", others: ".codex-", keys: ["OPENAI_API_KEY"] },
  { cli: "gemini", login: ".gemini", others: ".gemini-", keys: ["GEMINI_API_KEY", "GOOGLE_API_KEY"] },
  { cli: "opencode", login: ".local/share/opencode", others: ".opencode-", keys: [] }
]

/**
 * `init` was given something it cannot use, or cannot ask.
 *
 * @internal
 */
export class InvalidInit extends Schema.TaggedError<InvalidInit>("@fallback/cli/InvalidInit")("InvalidInit", {
  reason: Schema.String
}) {
  override get message(): string {
    return this.reason
  }
}

const yes = toggle("yes", "write the config without asking (for scripts)", "y")
const only = repeated("cli", "VALUE", "set up only this CLI (repeatable; default: every one installed)")
const endpoint = repeated("endpoint", "VALUE", "CLI=URL: the endpoint that CLI sends its requests to (repeatable)")
const key = text("key", "VALUE", "the variable the endpoints' key is read from (its value is never written)")

const set = (name: string) =>
  Effect.map(Config.option(Config.String(name)), (value) => Option.isSome(value) && value.value !== "")

interface Found {
  readonly cli: string
  readonly version: string
  readonly accounts: ReadonlyArray<ConfigFile.Account>
  readonly seen: ReadonlyArray<string>
}

/** The CLIs installed and the accounts of each that can be seen, never reading a key's value. */
const discover = (clis: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const home = yield* Config.String("HOME").pipe(Config.withDefault(""))
    const entries = home === "" ? [] : yield* fs.readDirectory(home).pipe(Effect.orElseSucceed(() => []))
    const found: Array<Found> = []
    for (const look of looks) {
      if (clis.length > 0 && !clis.includes(look.cli)) continue
      const bin = yield* binaryOf(look.cli, undefined)
      if (Option.isNone(bin)) continue
      const accounts: Array<ConfigFile.Account> = []
      const seen: Array<string> = []
      // looked at before the CLI is started: some make their folder when asked their version; a
      // folder is a sign-in only when it holds the file signing in writes
      const sign = signInOf(look.cli)
      if (home !== "" && sign !== undefined && (yield* signedIn(look.cli, undefined, home))) {
        accounts.push(ConfigFile.Account.make({ name: "login" }))
        seen.push(`login: its own sign-in in ~/${look.login}`)
      }
      const version = Option.getOrElse(yield* versionOf(bin.value), () => "version unknown")
      for (const entry of [...entries].sort()) {
        if (!entry.startsWith(look.others)) continue
        const name = entry.slice(look.others.length).toLowerCase()
        if (!/^[a-z0-9][a-z0-9-]*$/.test(name) || accounts.some((a) => a.name === name)) continue
        const dir = path.join(home, entry)
        accounts.push(ConfigFile.Account.make({ name, configDir: dir }))
        const unsigned = sign !== undefined && !(yield* signedIn(look.cli, dir, home))
        seen.push(
          `${name}: the config dir ~/${entry}${
            sign === undefined || !unsigned ? "" : ` (not signed in; sign in with: ${signInLine(sign, `~/${entry}`)})`
          }`
        )
      }
      for (const variable of look.keys) {
        if (!(yield* set(variable))) continue
        accounts.push(ConfigFile.Account.make({ name: "key", env: { [look.keys[0]!]: { fromEnv: variable } } }))
        seen.push(`key: the key in $${variable} (set; its value is not read)`)
        break
      }
      found.push({ cli: look.cli, version, accounts, seen })
    }
    return found
  })

const endpointsOf = (given: ReadonlyArray<string>, key: Option.Option<string>) =>
  Effect.forEach(given, (pair) => {
    const at = pair.indexOf("=")
    const cli = pair.slice(0, at)
    if (at <= 0 || !agentClis.some((a) => a.cli === cli)) {
      return new InvalidInit({
        reason: `--endpoint ${pair}: write CLI=URL, the CLI one of ${agentClis.map((a) => a.cli).join(", ")}`
      })
    }
    return Result.match(
      Schema.decodeUnknownResult(ConfigFile.Endpoint)({
        baseUrl: pair.slice(at + 1),
        ...Option.match(key, { onNone: () => ({}), onSome: (fromEnv) => ({ key: { fromEnv } }) })
      }),
      {
        onFailure: () =>
          Effect.fail(
            new InvalidInit({
              reason: `--endpoint ${pair}: the URL is an http:// or https:// one, and --key the name of a variable`
            })
          ),
        onSuccess: (endpoint) => Effect.succeed([cli, endpoint] as const)
      }
    )
  })

/** @internal */
export const init = Command.make("init", { config, yes, only, endpoint, key }, (args) =>
  Effect.gen(function*() {
    const endpoints = new Map(yield* endpointsOf(args.endpoint, args.key))
    const found = yield* discover(args.only)
    for (const cli of endpoints.keys()) {
      if (found.some((f) => f.cli === cli)) continue
      return yield* new InvalidInit({
        reason: `--endpoint ${cli}=…: ${cli} is not installed (not on PATH); install it with: ${
          agentClis.find((a) => a.cli === cli)!.install
        }`
      })
    }
    const store = yield* ConfigFile.Store
    const file = Option.getOrElse(store.file, () => "the config")
    if (found.length === 0) {
      return yield* new InvalidInit({
        reason: `no agent CLI is installed${args.only.length > 0 ? ` of ${args.only.join(", ")}` : ""}; install one: ${
          agentClis.filter((a) => a.cli !== "antigravity").map((a) => a.install).join(", or ")
        }`
      })
    }
    yield* Console.log(
      [
        "Found:",
        ...found.flatMap((f) => [
          `  ${f.cli} ${f.version}`,
          ...(f.seen.length > 0
            ? f.seen.map((s) => `    account ${s}`)
            : endpoints.has(f.cli)
            ? ["    no account seen; its endpoint's key is used"]
            : [
              `    no account seen: not signed in, and no key variable set${
                signInOf(f.cli) === undefined ? "" : ` (sign in with: ${signInLine(signInOf(f.cli)!)})`
              }`
            ]),
          ...(endpoints.has(f.cli) ? [`    sends its requests to ${endpoints.get(f.cli)!.baseUrl}`] : [])
        ])
      ].join("\n")
    )
    let picked = found
    if (!args.yes) {
      if (!(yield* (yield* Stdio.Stdio).stdinIsTerminal)) {
        return yield* new InvalidInit({ reason: `no terminal to ask on; write ${file} with: fallback init --yes` })
      }
      const choices = found.flatMap((f) =>
        f.accounts.map((account, i) => ({
          title: `${f.cli}@${account.name}`,
          description: f.seen[i]!,
          value: `${f.cli}@${account.name}`,
          selected: true
        }))
      )
      // the accounts to write, all offered picked; with none to offer, whether to write at all
      const asked: Effect.Effect<ReadonlySet<string> | boolean, Terminal.QuitError, Prompt.Environment> =
        choices.length === 0
          ? Prompt.run(Prompt.Confirm({ message: `Write these to ${file}?`, initial: true }))
          : Effect.map(
            Prompt.run(
              Prompt.MultiSelect({ message: `The accounts to write to ${file} (space picks, enter writes)`, choices })
            ),
            (names) => new Set(names)
          )
      const answer = yield* asked.pipe(Effect.catchTag("QuitError", () => Effect.succeed(false)))
      if (answer === false) return yield* Console.log("Nothing written.")
      if (answer !== true) {
        picked = found.map((f) => ({ ...f, accounts: f.accounts.filter((a) => answer.has(`${f.cli}@${a.name}`)) }))
      }
    }
    const schema = yield* besideConfig("config.schema.json")
    const fs = yield* FileSystem.FileSystem
    yield* fs.makeDirectory((yield* Path.Path).dirname(schema), { recursive: true })
    yield* fs.writeFileString(schema, `${JSON.stringify(ConfigFile.jsonSchema(), null, 2)}\n`)
    yield* store.modify((document) => {
      const accounts = { ...document.accounts }
      const clis = { ...document.clis }
      for (const f of picked) {
        const had = accounts[f.cli] ?? []
        accounts[f.cli] = [...had, ...f.accounts.filter((a) => !had.some((h) => h.name === a.name))]
        const reach = endpoints.get(f.cli)
        if (reach !== undefined) clis[f.cli] = { ...clis[f.cli], endpoint: reach }
        else if (clis[f.cli] === undefined) clis[f.cli] = {}
      }
      return Result.succeed({ ...document, $schema: "./config.schema.json", accounts, clis })
    })
    yield* Console.log(`Wrote ${file}. What the doctor says of it:`)
    yield* examine(false)
    const placeOf = (f: Found | undefined) =>
      f === undefined ? "CLI/MODEL" : `${f.cli}${f.accounts[0] === undefined ? "" : `@${f.accounts[0].name}`}/MODEL`
    yield* Console.log(
      "Next: write where a failed turn goes, then take one:\n" +
        `  fallback point ${placeOf(found[0])} ${placeOf(found[1])}\n` +
        `  fallback run ${placeOf(found[0])} "Say hello"`
    )
  }).pipe(Effect.provide(editing(args.config)))).pipe(
    Command.withDescription(
      "Finds the agent CLIs installed (with their versions) and the accounts it can see (their own sign-in,\n" +
        "where the file signing in writes is there; folders like ~/.claude-work; key variables that are set,\n" +
        "never reading a value), writes them to the\n" +
        "config with a $schema line (adding to what is there), and ends with the doctor's verdict.\n\n" +
        "  fallback init\n" +
        "  fallback init --yes\n" +
        "  fallback init --yes --endpoint claude=http://127.0.0.1:8080 --endpoint codex=http://127.0.0.1:8080/v1 --key LOCAL_KEY"
    )
  )
