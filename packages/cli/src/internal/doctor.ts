import * as ConfigFile from "@fallback/core/ConfigFile"
import * as Place from "@fallback/core/Place"
import * as Command from "effect/cli/Command"
import * as Config from "effect/Config"
import * as Console from "effect/Console"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Option from "effect/Option"
import * as Path from "effect/Path"
import * as ChildProcess from "effect/process/ChildProcess"
import * as ChildProcessSpawner from "effect/process/ChildProcessSpawner"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { config, editing, json } from "./config.js"
import { plainAtOpencode } from "./outcome.js"
import { servedAt } from "./served.js"
import { signedIn, signInLine, signInOf } from "./signIn.js"
import { didYouMean } from "./usage.js"

/**
 * One thing the doctor looked at: what, whether it is fine, what it found, and the line that
 * fixes it when it is not.
 *
 * @internal
 */
interface Check {
  readonly subject: string
  readonly ok: boolean
  readonly detail: string
  readonly fix?: string | undefined
}

/**
 * The doctor found problems; each was printed with the line that fixes it.
 *
 * @internal
 */
export class ProblemsFound extends Schema.TaggedError<ProblemsFound>("@fallback/cli/ProblemsFound")("ProblemsFound", {
  count: Schema.Int
}) {
  override get message(): string {
    return `${this.count} ${this.count === 1 ? "problem" : "problems"} found; the line that fixes each is above`
  }
}

const variable = (name: string) =>
  Effect.map(Config.option(Config.String(name)), (value) => Option.isSome(value) && value.value !== "")

const executable = (file: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    return yield* fs.access(file, { ok: true }).pipe(
      Effect.andThen(fs.stat(file)),
      Effect.map((info) => info.type === "File" && (info.mode & 0o111) !== 0),
      Effect.orElseSucceed(() => false)
    )
  })

/**
 * The binary a CLI runs: the config's `bin`, else the first executable of its name on PATH.
 *
 * @internal
 */
export const binaryOf = (cli: string, bin: string | undefined) =>
  Effect.gen(function*() {
    const path = yield* Path.Path
    if (bin !== undefined) return (yield* executable(bin)) ? Option.some(bin) : Option.none()
    const dirs = (yield* Config.String("PATH").pipe(Config.withDefault(""))).split(
      process.platform === "win32" ? ";" : ":"
    ).filter((d) => d !== "")
    for (const dir of dirs) {
      if (yield* executable(path.join(dir, cli))) return Option.some(path.join(dir, cli))
    }
    return Option.none<string>()
  })

/**
 * A word as a shell reads it back unchanged: as it is when it holds nothing a shell treats
 * specially, else in single quotes.
 *
 * @internal
 */
export const shellWord = (word: string): string =>
  /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`

/** @internal */
export const versionOf = (bin: string) =>
  Effect.flatMap(
    ChildProcessSpawner.ChildProcessSpawner,
    (spawner) => spawner.lines(ChildProcess.make(bin, ["--version"]))
  ).pipe(
    Effect.map((lines) => Option.fromUndefinedOr(lines.find((line) => line.trim() !== "")?.trim())),
    // a CLI that relaunches itself (gemini) answers slowly on a busy machine
    Effect.timeout(Duration.seconds(30)),
    Effect.option,
    Effect.map(Option.flatten)
  )

// the backends (each CLI's install line) load only when the config uses a CLI
const cliChecks = (document: ConfigFile.Document, used: ReadonlySet<string>, file: string) =>
  Effect.flatMap(
    used.size === 0 ? Effect.succeed([]) : Effect.promise(() => import("./backends.js").then((m) => m.agentClis)),
    (agentClis) =>
      Effect.forEach(agentClis.filter(({ cli }) => used.has(cli)), ({ cli, install }) =>
        Effect.gen(function*() {
          const bin = document.clis[cli]?.bin
          const found = yield* binaryOf(cli, bin)
          if (Option.isNone(found)) {
            return bin === undefined
              ? { subject: cli, ok: false, detail: "not installed (not on PATH)", fix: install }
              : {
                subject: cli,
                ok: false,
                detail: `${bin} (clis.${cli}.bin) is not an executable file`,
                fix:
                  `set clis.${cli}.bin in ${file} to the ${cli} program (\`command -v ${cli}\` shows it), or remove it to use ${cli} on PATH`
              }
          }
          const version = yield* versionOf(found.value)
          return Option.match(version, {
            onNone: (): Check => ({
              subject: cli,
              ok: false,
              detail: `${found.value} does not start (no answer to --version)`,
              fix: install
            }),
            onSome: (v): Check => ({ subject: cli, ok: true, detail: `${v} at ${found.value}` })
          })
        }))
  )

const accountChecks = (document: ConfigFile.Document) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const home = yield* Config.String("HOME").pipe(Config.withDefault(""))
    const checks: Array<Check> = []
    for (const [cli, accounts] of Object.entries(document.accounts)) {
      for (const account of accounts) {
        const subject = `${cli}@${account.name}`
        const sign = signInOf(cli)
        // a key or an endpoint stands in for a sign-in
        const keyed = account.endpoint !== undefined || document.clis[cli]?.endpoint !== undefined ||
          Object.keys(account.env ?? {}).some((name) => /(?:KEY|TOKEN)$/.test(name))
        if (account.configDir !== undefined) {
          const dir = ConfigFile.expandHome(account.configDir, home)
          const typed = account.configDir.startsWith("~/")
            ? `~/${shellWord(account.configDir.slice(2))}`
            : shellWord(dir)
          if (!(yield* fs.exists(dir).pipe(Effect.orElseSucceed(() => false)))) {
            checks.push({
              subject,
              ok: false,
              detail: `config dir ${account.configDir} does not exist`,
              fix: `mkdir -p ${typed}  # then sign ${cli} in there`
            })
          } else if (sign === undefined || keyed) {
            checks.push({ subject, ok: true, detail: `config dir ${account.configDir}` })
          } else {
            checks.push(
              (yield* signedIn(cli, dir, home))
                ? { subject, ok: true, detail: `config dir ${account.configDir}, signed in (${sign.file})` }
                : {
                  subject,
                  ok: false,
                  detail: `config dir ${account.configDir} holds no sign-in (no ${sign.file} in it)`,
                  fix: signInLine(sign, typed)
                }
            )
          }
        } else if (sign !== undefined && !keyed) {
          const file = `~/${sign.own === "" ? "" : `${sign.own}/`}${sign.file}`
          checks.push(
            (yield* signedIn(cli, undefined, home))
              ? { subject, ok: true, detail: `signed in (${file})` }
              : { subject, ok: false, detail: `not signed in (no ${file})`, fix: signInLine(sign) }
          )
        }
        for (const [name, value] of Object.entries(account.env ?? {})) {
          if (typeof value === "string") continue
          checks.push(
            (yield* variable(value.fromEnv))
              ? { subject, ok: true, detail: `${name} from ${value.fromEnv} (set)` }
              : {
                subject,
                ok: false,
                detail: `${name} is taken from ${value.fromEnv}, which is not set`,
                fix: `export ${value.fromEnv}=…  # the value of ${name} for account ${account.name}`
              }
          )
        }
      }
    }
    const endpoints = [
      ...Object.entries(document.clis).map(([cli, settings]) => [cli, settings.endpoint] as const),
      ...Object.entries(document.accounts).flatMap(([cli, accounts]) =>
        accounts.map((account) => [`${cli}@${account.name}`, account.endpoint] as const)
      )
    ]
    for (const [subject, endpoint] of endpoints) {
      if (endpoint?.key === undefined) continue
      checks.push(
        (yield* variable(endpoint.key.fromEnv))
          ? { subject, ok: true, detail: `its endpoint ${endpoint.baseUrl}, key from ${endpoint.key.fromEnv} (set)` }
          : {
            subject,
            ok: false,
            detail: `its endpoint's key is taken from ${endpoint.key.fromEnv}, which is not set`,
            fix: `export ${endpoint.key.fromEnv}=…  # the key of ${endpoint.baseUrl}`
          }
      )
    }
    for (const [name, provider] of Object.entries(document.providers)) {
      const overridden = (document.accounts[name] ?? []).length > 0
      if (overridden) continue
      for (const [header, value] of Object.entries(provider.headers ?? {})) {
        if (typeof value === "string") continue
        checks.push(
          (yield* variable(value.fromEnv))
            ? { subject: name, ok: true, detail: `header ${header} from ${value.fromEnv} (set)` }
            : {
              subject: name,
              ok: false,
              detail: `its header ${header} is taken from ${value.fromEnv}, which is not set`,
              fix: `export ${value.fromEnv}=…  # the ${header} header of ${name}`
            }
        )
      }
      if (provider.key === undefined) continue
      checks.push(
        (yield* variable(provider.key.fromEnv))
          ? { subject: name, ok: true, detail: `key from ${provider.key.fromEnv} (set)` }
          : {
            subject: name,
            ok: false,
            detail: `its key is taken from ${provider.key.fromEnv}, which is not set`,
            fix: `export ${provider.key.fromEnv}=…  # the API key of ${name}`
          }
      )
    }
    return checks
  })

/** Each step, with the models its places name checked against what those places serve. */
const stepChecks = (document: ConfigFile.Document, file: string): Array<Check> =>
  Object.entries(document.steps).map(([from, step]) => {
    const shown = step.to === undefined ? `${from} (tries again; no next place)` : `${from} → ${Place.format(step.to)}`
    const places = [Result.getOrThrow(Place.parse(from)), ...(step.to === undefined ? [] : [step.to])]
    const unknown = places.flatMap((place) =>
      Option.match(servedAt(document, place), {
        onNone: () => [],
        onSome: ({ addTo, models }) => models.includes(place.model) ? [] : [{ place, models, addTo }]
      })
    )
    const plain = places.find(plainAtOpencode)
    if (plain !== undefined) {
      return {
        subject: "step",
        ok: false,
        detail: `${shown}: opencode names a model PROVIDER/MODEL, not ${plain.model}`,
        fix: `write the place as opencode/PROVIDER/${plain.model} (\`opencode models\` lists them)`
      }
    }
    if (unknown.length === 0) return { subject: "step", ok: true, detail: shown }
    const { addTo, models, place } = unknown[0]!
    return {
      subject: "step",
      ok: false,
      detail: `${shown}: ${place.cli} has no model ${place.model}${didYouMean(place.model, models)}; it serves ${
        models.join(", ")
      }`,
      fix: `write a model it serves in the step (fallback edit), or add ${
        addTo.startsWith("providers.") ? `{ "name": "${place.model}" }` : `"${place.model}"`
      } to ${addTo} in ${file}`
    }
  })

/** With no provider configured, a turn needs an agent CLI installed: any one of them. */
const anywhere = (document: ConfigFile.Document) =>
  Object.keys(document.providers).length > 0
    ? Effect.succeed<Array<Check>>([])
    : Effect.gen(function*() {
      const { agentClis } = yield* Effect.promise(() => import("./backends.js"))
      for (const { cli } of agentClis) {
        if (Option.isSome(yield* binaryOf(cli, document.clis[cli]?.bin))) return []
      }
      return [{
        subject: "places",
        ok: false,
        detail: "no agent CLI is installed and no provider is configured: a turn has nowhere to run",
        fix: `install one (${
          agentClis.filter((a) => a.cli !== "antigravity").map((a) => a.install).join(", or ")
        }), or add a model server under "providers"`
      }]
    })

const usedClis = (document: ConfigFile.Document): ReadonlySet<string> =>
  new Set([
    ...Object.keys(document.accounts),
    ...Object.keys(document.clis),
    ...Object.entries(document.steps).flatMap(([from, step]) => [
      Result.getOrThrow(Place.parse(from)).cli,
      ...(step.to === undefined ? [] : [step.to.cli])
    ])
  ])

const count = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`

const show = (check: Check) =>
  `${check.ok ? "✓" : "✗"} ${check.subject.padEnd(16)} ${check.detail}${
    check.fix === undefined ? "" : `\n    fix: ${check.fix}`
  }`

/**
 * The doctor's verdict on the config in hand: every check printed, failing when one found a problem.
 *
 * @internal
 */
export const examine = (json: boolean) =>
  Effect.gen(function*() {
    const store = yield* ConfigFile.Store
    const file = Option.getOrElse(store.file, () => "the config")
    const read = yield* Effect.result(store.read)
    const document = Result.isSuccess(read) ? read.success : ConfigFile.empty
    const checks: Array<Check> = [
      Result.isSuccess(read)
        ? {
          subject: "config",
          ok: true,
          detail: `${file}: ${count(Object.keys(document.steps).length, "step")}, ${
            count(Object.values(document.accounts).flat().length, "account")
          }, ${count(Object.keys(document.providers).length, "provider")}`
        }
        : {
          subject: "config",
          ok: false,
          detail: read.failure.message,
          fix: `mend ${shellWord(file)} where the message says, or move it away`
        },
      ...yield* anywhere(document),
      ...yield* cliChecks(document, usedClis(document), file),
      ...stepChecks(document, file),
      ...yield* accountChecks(document)
    ]
    const problems = checks.filter((check) => !check.ok).length
    yield* Console.log(json ? JSON.stringify({ ok: problems === 0, checks }, null, 2) : checks.map(show).join("\n"))
    if (problems > 0) return yield* new ProblemsFound({ count: problems })
  })

/** @internal */
export const doctor = Command.make(
  "doctor",
  { config, json },
  ({ config, json }) => examine(json).pipe(Effect.provide(editing(config)))
).pipe(
  Command.withDescription(
    "Checks what the config needs: an agent CLI installed or a provider configured (a turn needs one), every\n" +
      "CLI its steps and accounts name installed and starting (with its version), each step's models among\n" +
      "those its place serves (a provider's models list), every account's config dir there and signed in (the\n" +
      "file the CLI's sign-in writes: claude .credentials.json, codex auth.json, gemini .gemini/oauth_creds.json,\n" +
      "opencode opencode/auth.json; an account with a key needs none), every variable a key is taken from set\n" +
      "(never showing its value). Each problem comes with the line that fixes it; the exit status is 1 when\n" +
      "there is one.\n\n" +
      "  fallback doctor\n  fallback doctor --json"
  )
)
