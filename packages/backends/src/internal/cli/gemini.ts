import * as Backend from "@fallback/core/Backend"
import * as Classify from "@fallback/core/Classify"
import * as Failure from "@fallback/core/Failure"
import type * as Place from "@fallback/core/Place"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type * as Cli from "../../Cli.js"
import { atRung, type Description, type Rungs, rungsOf } from "./backend.js"
import { ended } from "./ended.js"
import * as Json from "./json.js"
import { landed } from "./landed.js"

/** @internal */
export const install = "npm install -g @google/gemini-cli"

/**
 * gemini's `--approval-mode` for each rung it expresses exactly. It has no read-only mode (its
 * default still runs what its own settings allow, and its sandbox needs a container), so
 * `read-only` is a rung gemini cannot honour.
 *
 * @internal
 */
export const approvalModes: Rungs<string> = { ask: "default", edit: "auto_edit", full: "yolo" }

/** @internal */
export const argv = (turn: Cli.Turn): ReadonlyArray<string> => [
  "-m",
  turn.model,
  "--skip-trust",
  "--output-format",
  "stream-json",
  ...(turn.resume === undefined ? [] : ["--resume", turn.resume]),
  ...(turn.settings.permission === undefined
    ? []
    : ["--approval-mode", atRung("gemini", approvalModes, turn.settings.permission)]),
  `--prompt=${turn.prompt}`
]

/** @internal */
export const live = (fields: Json.Fields): ReadonlyArray<Backend.Event> => {
  const sessionId = Json.text(fields, "session_id")
  if (fields.type === "init" && sessionId !== undefined) return [Backend.Event.SessionStarted({ sessionId })]
  if (fields.type === "message" && fields.role === "assistant") {
    return [Backend.Event.Text({ text: Json.text(fields, "content") ?? "" })]
  }
  if (fields.type === "tool_use") {
    return [
      Backend.Event.ToolUse({
        name: Json.text(fields, "tool_name") ?? "",
        input: Json.field(fields, "parameters") ?? {}
      })
    ]
  }
  return []
}

/** @internal */
export const settled = (line: { readonly stream: string; readonly text: string }): boolean =>
  line.stream === "stderr" && /^Attempt \d+ failed/.test(line.text)

const noise =
  /^Warning: 256-color|^Ripgrep is not available|^\[STARTUP\]|^Full report available at|^\s+at |^Loaded cached credentials|^YOLO mode/

/**
 * The HTTP status a gemini run exits with in its JSON modes: the status modulo 256 (400 → 144,
 * 429 → 173, 503 → 247).
 */
const statusOfExit = (exitCode: number | null): number | undefined =>
  exitCode === null || exitCode < 144 ? undefined : exitCode + 256

const statusIn = (message: string): number | undefined => {
  const found = /"code":\s*(\d{3})\b/.exec(message) ?? /\bstatus(?: code)?:?\s+(\d{3})\b/i.exec(message) ??
    /\[API Error: .*?\b(\d{3})\b/.exec(message)
  return found === null ? undefined : Number(found[1])
}

/** @internal */
export const readOutcome = (finished: Cli.Finished, place: Place.Place): Cli.Outcome => {
  const events = Json.objects(finished.stdout)
  const sessionId = Json.text(events.find((fields) => fields.type === "init"), "session_id")
  const result = Json.last(events, (fields) => fields.type === "result")
  if (result?.status === "success" && finished.exitCode === 0 && finished.signal === null) {
    const content = events.flatMap(live).filter((event) => event._tag !== "SessionStarted")
    const stats = Json.field(result, "stats")
    return landed(sessionId, content, content.map((event) => event._tag === "Text" ? event.text : "").join(""), {
      input: Json.number(stats, "input_tokens") ?? 0,
      output: Json.number(stats, "output_tokens") ?? 0
    })
  }
  const stderr = Classify.tail(finished.stderr.split("\n").filter((line) => !noise.test(line)).join("\n"))
  const message = Json.text(Json.field(result, "error"), "message") ??
    Json.text(Json.last(events, (fields) => fields.type === "error"), "message") ?? stderr
  const status = statusOfExit(finished.exitCode) ?? statusIn(message)
  if (status !== undefined) return Result.fail(Classify.byStatus(status, message, place))
  if (finished.exitCode === 41 && finished.signal === null) {
    return Result.fail(
      new Failure.AuthRefused({ place, said: Failure.said(message || "gemini could not authenticate") })
    )
  }
  return Result.fail(ended(finished, place, {
    install,
    message,
    without: "its result",
    mayBeBroken: result === undefined
  }))
}

const readObject = (file: string): Record<string, unknown> => {
  try {
    const parsed: unknown = JSON.parse(fs.readFileSync(file, "utf8"))
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
      ? parsed as Record<string, unknown>
      : {}
  } catch {
    return {}
  }
}

/** Writes `settings` with `general.maxAttempts` 1 to `file`, when that is not already what it holds. */
const writeOff = (file: string, settings: Record<string, unknown>): void => {
  const general = typeof settings.general === "object" && settings.general !== null ? settings.general : {}
  const text = JSON.stringify({ ...settings, general: { ...general, maxAttempts: 1 } }, null, 2) + "\n"
  if (fs.existsSync(file) && fs.readFileSync(file, "utf8") === text) return
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 })
  const temporary = `${file}.${process.pid}.tmp`
  fs.writeFileSync(temporary, text, { mode: 0o600 })
  fs.renameSync(temporary, file)
}

/**
 * Turns gemini's own retrying off (`general.maxAttempts` 1: no flag or variable says it, and gemini
 * takes system settings only from files root owns). An account's own config dir (`GEMINI_CLI_HOME`)
 * gets it in its settings; the user's own `~/.gemini` is never written: gemini runs in `managed`, a
 * home fallback keeps whose `.gemini` links to every entry of the user's (sign-in, sessions, all)
 * but holds its own copy of the settings, the user's with that one setting. The variables for the
 * child.
 *
 * @internal
 */
export const retriesOff = (
  env: Readonly<Record<string, string>>,
  managed: string,
  parent: NodeJS.ProcessEnv
): Readonly<Record<string, string>> => {
  if (env.GEMINI_CLI_HOME !== undefined && env.GEMINI_CLI_HOME !== parent.GEMINI_CLI_HOME) {
    const file = path.join(env.GEMINI_CLI_HOME, ".gemini", "settings.json")
    writeOff(file, readObject(file))
    return {}
  }
  const home = env.GEMINI_CLI_HOME ?? env.HOME
  if (home === undefined) return {}
  const own = path.join(home, ".gemini")
  const mirror = path.join(managed, ".gemini")
  fs.mkdirSync(mirror, { recursive: true, mode: 0o700 })
  for (const entry of fs.existsSync(own) ? fs.readdirSync(own) : []) {
    const link = path.join(mirror, entry)
    if (entry === "settings.json" || fs.lstatSync(link, { throwIfNoEntry: false }) !== undefined) continue
    fs.symlinkSync(path.join(own, entry), link)
  }
  writeOff(path.join(mirror, "settings.json"), readObject(path.join(own, "settings.json")))
  return { GEMINI_CLI_HOME: managed }
}

/**
 * Options of the gemini backend beyond every CLI's: `home`, the home fallback keeps for gemini when
 * an account has no config dir of its own (`~/.config/fallback/homes/gemini` unless said).
 *
 * @internal
 */
export interface Options extends Cli.Options {
  readonly home?: string | undefined
}

/** @internal */
export const description = (options: Options): Description => ({
  module: "Gemini",
  cli: "gemini",
  install,
  capabilities: {
    webSearchOff: false,
    callbacks: false,
    effort: false,
    permission: rungsOf(approvalModes),
    skills: false,
    resume: true,
    models: []
  },
  argv,
  quiet: () => ({}),
  home: (configDir) => ({ GEMINI_CLI_HOME: configDir }),
  passes: [
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "GOOGLE_GEMINI_BASE_URL",
    "GOOGLE_CLOUD_PROJECT",
    "GOOGLE_CLOUD_LOCATION",
    "GOOGLE_GENAI_USE_VERTEXAI",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "GEMINI_CLI_HOME"
  ],
  live,
  settled,
  final: (fields) => fields.type === "result",
  readOutcome,
  noSession: /Invalid session identifier/i,
  sessions: (env) => {
    const home = env.GEMINI_CLI_HOME ?? env.HOME
    return home === undefined ? undefined : `${home}/.gemini/tmp`
  },
  mark: (sessionId) => sessionId.slice(0, 8),
  keepsFailed: false,
  prepare: (_, env) =>
    options.retries === true ?
      Effect.succeed({}) :
      Effect.try(() =>
        retriesOff(env, options.home ?? path.join(os.homedir(), ".config", "fallback", "homes", "gemini"), process.env)
        // a home that cannot be written leaves gemini's retrying on; its progress still ends the turn early
      ).pipe(Effect.orElseSucceed(() => ({})))
})
