import { Backend, Failure } from "@fallback/core"
import type { Place } from "@fallback/core"
import * as Either from "effect/Either"
import type * as Cli from "../Cli.js"
import type { Description } from "./backend.js"
import * as Classify from "./classify.js"
import * as Json from "./json.js"
import { landed } from "./turned.js"

/** @internal */
export const install = "npm install -g @google/gemini-cli"

/** @internal */
export const argv = (turn: Cli.Turn): ReadonlyArray<string> => [
  "-m",
  turn.model,
  "--skip-trust",
  "--output-format",
  "stream-json",
  ...(turn.resume === undefined ? [] : ["--resume", turn.resume]),
  ...(turn.settings.permission === undefined ? [] : ["--approval-mode", turn.settings.permission]),
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
  if (status !== undefined) return Either.left(Classify.byStatus(status, message, place))
  if (finished.exitCode === 41 && finished.signal === null) {
    return Either.left(
      new Failure.AuthRefused({ place, said: Failure.said(message || "gemini could not authenticate") })
    )
  }
  return Either.left(Classify.ended(finished, place, {
    install,
    message,
    without: "its result",
    mayBeBroken: result === undefined
  }))
}

/** @internal */
export const description: Description = {
  module: "Gemini",
  cli: "gemini",
  install,
  capabilities: {
    webSearchOff: false,
    callbacks: false,
    effort: false,
    permission: true,
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
  readOutcome,
  noSession: /Invalid session identifier/i,
  sessions: (env) => {
    const home = env.GEMINI_CLI_HOME ?? env.HOME
    return home === undefined ? undefined : `${home}/.gemini/tmp`
  },
  mark: (sessionId) => sessionId.slice(0, 8),
  keepsFailed: false
}
