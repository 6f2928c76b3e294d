import * as Accounts from "@fallback/core/Accounts"
import * as ConfigFile from "@fallback/core/ConfigFile"
import * as Argument from "effect/cli/Argument"
import * as Command from "effect/cli/Command"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as SchemaIssue from "effect/SchemaIssue"
import { config, editing, json, repeated, text } from "./config.js"
import { table } from "./table.js"

/**
 * An account the command line was asked to add that is not one: the message says what to write.
 *
 * @internal
 */
export class InvalidAccount extends Schema.TaggedError<InvalidAccount>("@fallback/cli/InvalidAccount")(
  "InvalidAccount",
  { reason: Schema.String }
) {
  override get message(): string {
    return this.reason
  }
}

const cli = Argument.String("cli").pipe(Argument.withDescription("the CLI whose accounts these are (claude, codex…)"))
const name = Argument.String("name").pipe(Argument.withDescription("the account's name, the @ACCOUNT of a place"))

const describeEnv = (env: ConfigFile.Account["env"]) =>
  Object.entries(env ?? {}).map(([key, value]) =>
    typeof value === "string" ? `${key}=${value}` : `${key}=fromEnv:${value.fromEnv}`
  ).join(" ")

const show = Command.make(
  "accounts",
  { config, json, cli: cli.pipe(Argument.optional) },
  ({ cli, config, json }) =>
    Effect.gen(function*() {
      const accounts = yield* Accounts.Accounts
      const names = cli._tag === "Some"
        ? [cli.value]
        : Object.keys((yield* (yield* ConfigFile.Store).read).accounts).sort()
      const rows = yield* Effect.forEach(names, (name) =>
        Effect.map(accounts.list(name), (list) =>
          list.map((account, i) => ({
            cli: name,
            order: i + 1,
            name: account.name,
            configDir: account.configDir ?? null,
            env: account.env ?? {}
          }))))
      const flat = rows.flat()
      if (json) {
        return yield* Console.log(JSON.stringify(flat, null, 2))
      }
      if (flat.length === 0) {
        return yield* Console.log(
          `No accounts${
            cli._tag === "Some" ? ` for ${cli.value}` : ""
          } yet. Add one with: fallback accounts add CLI NAME`
        )
      }
      yield* Console.log(table(
        ["CLI", "#", "ACCOUNT", "CONFIG DIR", "ENVIRONMENT"],
        flat.map((row) => [row.cli, String(row.order), row.name, row.configDir ?? "-", describeEnv(row.env) || "-"])
      ))
    }).pipe(Effect.provide(editing(config)))
)

const configDir = text(
  "config-dir",
  "DIR",
  "the CLI's own config folder for this account (CLAUDE_CONFIG_DIR, CODEX_HOME…)"
)

const env = repeated(
  "env",
  "VAR=fromEnv:OTHER",
  "VAR=fromEnv:OTHER takes VAR from your variable OTHER; VAR=value for a plain setting"
)

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

/** A schema's issues one by one, each with the path to what it is about. */
const issuesOf = (issue: SchemaIssue.Issue) =>
  formatter(issue).issues.map(({ message, path }) => ({
    message,
    path: (path ?? []).map((at) => typeof at === "object" ? at.key : at)
  }))

const accountOf = (name: string, configDir: string | undefined, env: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const variables: Record<string, unknown> = {}
    for (const pair of env) {
      const at = pair.indexOf("=")
      if (at <= 0) {
        return yield* new InvalidAccount({ reason: `--env ${pair}: write VAR=fromEnv:OTHER or VAR=value` })
      }
      const value = pair.slice(at + 1)
      variables[pair.slice(0, at)] = value.startsWith("fromEnv:") ? { fromEnv: value.slice("fromEnv:".length) } : value
    }
    const input = {
      name,
      ...(configDir === undefined ? {} : { configDir }),
      ...(env.length === 0 ? {} : { env: variables })
    }
    const decoded = Schema.decodeUnknownResult(ConfigFile.Account)(input)
    if (Result.isSuccess(decoded)) return decoded.success
    return yield* new InvalidAccount({
      reason: issuesOf(decoded.failure.issue).map(({ message, path }) =>
        path[0] === "env" && typeof path[1] === "string"
          ? `--env ${path[1]}: ${
            message.includes("secret")
              ? `looks like a secret; keep it in your environment and pass --env ${path[1]}=fromEnv:YOUR_VARIABLE`
              : "write VAR=fromEnv:OTHER (a variable name: letters, digits and _) or VAR=value"
          }`
          : `${path.length === 0 ? "the account" : path.map(String).join(".")}: ${message}`
      ).join("; ")
    })
  })

/** @internal */
export const add = Command.make(
  "add",
  { config, cli, name, configDir, env },
  ({ cli, config, configDir, env, name }) =>
    Effect.gen(function*() {
      const account = yield* accountOf(name, configDir._tag === "Some" ? configDir.value : undefined, env)
      yield* (yield* Accounts.Accounts).add(cli, account)
      yield* Console.log(`${cli}: added account ${name}`)
    }).pipe(Effect.provide(editing(config)))
).pipe(
  Command.withDescription(
    "Adds an account at the end of CLI's account chain.\n\n" +
      "  fallback accounts add claude work --config-dir ~/.claude-work\n" +
      "  fallback accounts add claude key --env ANTHROPIC_API_KEY=fromEnv:ANTHROPIC_KEY_2"
  )
)

/** @internal */
export const remove = Command.make("remove", { config, cli, name }, ({ cli, config, name }) =>
  Effect.gen(function*() {
    const document = yield* (yield* ConfigFile.Store).read
    const naming = Object.entries(document.steps).flatMap(([from, step]) => [
      ...(from.startsWith(`${cli}@${name}/`) ? [from] : []),
      ...(step.to !== undefined && step.to.cli === cli && step.to.account === name ? [from] : [])
    ])
    if (naming.length > 0) {
      return yield* new InvalidAccount({
        reason: `${cli}: account ${name} is named by the step${naming.length === 1 ? "" : "s"} at ${
          [...new Set(naming)].join(", ")
        }; clear ${naming.length === 1 ? "it" : "them"} first (fallback clear ${naming[0]}) or point ${
          naming.length === 1 ? "it" : "them"
        } elsewhere (fallback point ${naming[0]} OTHER-PLACE)`
      })
    }
    yield* (yield* Accounts.Accounts).remove(cli, name)
    yield* Console.log(`${cli}: removed account ${name}`)
  }).pipe(Effect.provide(editing(config)))).pipe(
    Command.withDescription(
      "Removes an account (refused while a step names it).\n\n  fallback accounts remove claude key"
    )
  )

/** @internal */
export const order = Command.make("order", {
  config,
  cli,
  names: Argument.String("name").pipe(Argument.variadic(), Argument.withDescription("every account, in the new order"))
}, ({ cli, config, names }) =>
  Effect.gen(function*() {
    yield* (yield* Accounts.Accounts).order(cli, names)
    yield* Console.log(`${cli}: ${names.join(" → ")}`)
  }).pipe(Effect.provide(editing(config)))).pipe(
    Command.withDescription("Puts CLI's accounts in the order given.\n\n  fallback accounts order claude key work")
  )

/** @internal */
export const accounts = show.pipe(
  Command.withDescription(
    "The account chains: each CLI's accounts in the order a failed turn walks them.\n\n" +
      "  fallback accounts\n  fallback accounts claude\n  fallback accounts add claude work --config-dir ~/.claude-work"
  ),
  Command.withSubcommands([add, remove, order])
)
