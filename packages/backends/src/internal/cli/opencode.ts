import * as Backend from "@fallback/core/Backend"
import * as Classify from "@fallback/core/Classify"
import * as Failure from "@fallback/core/Failure"
import type * as Place from "@fallback/core/Place"
import type * as Settings from "@fallback/core/Settings"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import type * as Cli from "../../Cli.js"
import { atRung, type Description, type Rungs, rungsOf } from "./backend.js"
import { ended } from "./ended.js"
import * as Json from "./json.js"
import { landed } from "./landed.js"

/** @internal */
export const install = "npm install -g opencode-ai"

/** @internal */
export const argv = (turn: Cli.Turn): ReadonlyArray<string> => [
  "run",
  "--format",
  "json",
  "-m",
  turn.model,
  ...(turn.resume === undefined ? [] : ["--session", turn.resume]),
  ...(turn.settings.effort === undefined ? [] : ["--variant", turn.settings.effort]),
  "--",
  turn.prompt
]

/** The tools that only read: allowed at every rung. */
const reading = { read: "allow", glob: "allow", grep: "allow", list: "allow", websearch: "allow" } as const

/** Every tool opencode asks about, said outright so none is left to its allow-by-default. */
const denied = {
  "*": "deny",
  edit: "deny",
  bash: "deny",
  webfetch: "deny",
  task: "deny",
  external_directory: "deny",
  doom_loop: "deny"
} as const

/**
 * opencode's `permission` config for each rung it expresses exactly. What claude would ask for is
 * denied outright: a headless run declines it either way, and `opencode run` is never left waiting
 * on a question. Its own default allows nearly everything, so `ask` is a rung opencode cannot
 * honour.
 *
 * @internal
 */
export const permissions: Rungs<Readonly<Record<string, string>>> = {
  "read-only": { ...denied, ...reading },
  edit: { ...denied, ...reading, edit: "allow" },
  full: { "*": "allow" }
}

/**
 * The config every turn runs with (`OPENCODE_CONFIG_CONTENT`): the backend's own config, with
 * updates and sharing off, web search off when the agent may not search, and the rung's
 * permissions in place of any the backend's config had.
 *
 * @internal
 */
export const config = (settings: Settings.Settings, given: object | undefined): string =>
  JSON.stringify({
    ...given,
    autoupdate: false,
    share: "disabled",
    ...(settings.webSearch ? {} : { tools: { ...(given as { tools?: object } | undefined)?.tools, websearch: false } }),
    ...(settings.permission === undefined
      ? {}
      : {
        permission: {
          ...atRung("opencode", permissions, settings.permission),
          ...(settings.webSearch ? {} : { websearch: "deny" })
        }
      })
  })

/** @internal */
export const live = (fields: Json.Fields): ReadonlyArray<Backend.Event> => {
  const part = Json.field(fields, "part")
  const sessionId = Json.text(fields, "sessionID")
  switch (fields.type) {
    case "step_start":
      return sessionId === undefined ? [] : [Backend.Event.SessionStarted({ sessionId })]
    case "text":
      return [Backend.Event.Text({ text: Json.text(part, "text") ?? "" })]
    case "tool_use":
      return [
        Backend.Event.ToolUse({
          name: Json.text(part, "tool") ?? "",
          input: Json.field(Json.field(part, "state"), "input") ?? {}
        })
      ]
    default:
      return []
  }
}

const ansi = /\x1b\[[0-9;]*m/g

const retryAfter = (headers: Json.Fields | undefined): number | undefined => {
  const value = Json.text(headers, "retry-after") ?? Json.text(headers, "Retry-After")
  const seconds = value === undefined ? NaN : Number(value)
  return Number.isFinite(seconds) ? seconds : undefined
}

const judge = (error: Json.Fields, place: Place.Place): Failure.Failure => {
  const name = Json.text(error, "name") ?? ""
  const data = Json.field(error, "data")
  const message = Json.text(data, "message") ?? name
  if (name === "ContextOverflowError") return new Failure.ContextTooLong({ place, said: Failure.said(message) })
  const status = Json.number(data, "statusCode")
  const headers = Json.field(data, "responseHeaders")
  const failure = status === undefined
    ? Classify.byMessage(message, place)
    : Classify.byStatus(status, message, place, retryAfter(headers))
  const until = failure._tag === "QuotaExhausted" ? Classify.quotaUntil(headers) : undefined
  return until === undefined ? failure : new Failure.QuotaExhausted({ place, said: failure.said, until })
}

/** @internal */
export const readOutcome = (finished: Cli.Finished, place: Place.Place): Cli.Outcome => {
  const events = Json.objects(finished.stdout)
  const sessionId = Json.text(events.find((fields) => Json.text(fields, "sessionID") !== undefined), "sessionID")
  const error = Json.last(events, (fields) => fields.type === "error")
  const finish = Json.last(events, (fields) => fields.type === "step_finish")
  if (error === undefined && finish !== undefined && finished.exitCode === 0 && finished.signal === null) {
    const content = events.flatMap(live).filter((event) => event._tag !== "SessionStarted")
    const tokens = Json.field(Json.field(finish, "part"), "tokens")
    return landed(sessionId, content, content.map((event) => event._tag === "Text" ? event.text : "").join(""), {
      input: Json.number(tokens, "input") ?? 0,
      output: Json.number(tokens, "output") ?? 0
    })
  }
  const reported = Json.field(error, "error")
  if (reported !== undefined) return Result.fail(judge(reported, place))
  const stderr = Classify.tail(finished.stderr.replace(ansi, ""))
  return Result.fail(ended(finished, place, { install, message: stderr, without: "finishing its step" }))
}

/** @internal */
export const description = (options: Cli.Options & { readonly config?: object | undefined }): Description => ({
  module: "OpenCode",
  cli: "opencode",
  install,
  capabilities: {
    webSearchOff: true,
    callbacks: false,
    effort: true,
    permission: rungsOf(permissions),
    skills: false,
    resume: true,
    models: []
  },
  argv,
  quiet: () => ({
    OPENCODE_DISABLE_AUTOUPDATE: "1",
    OPENCODE_DISABLE_MODELS_FETCH: "1",
    OPENCODE_DISABLE_SHARE: "1",
    OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
    OPENCODE_DISABLE_DEFAULT_PLUGINS: "1"
  }),
  home: (configDir) => ({ XDG_DATA_HOME: configDir }),
  passes: [
    "ANTHROPIC_API_KEY",
    "OPENAI_API_KEY",
    "GEMINI_API_KEY",
    "OPENROUTER_API_KEY",
    "XDG_DATA_HOME",
    "XDG_CONFIG_HOME"
  ],
  live,
  settled: () => false,
  // the last step's end: a step that ends to call tools is followed by another
  final: (fields) => fields.type === "step_finish" && Json.text(Json.field(fields, "part"), "reason") !== "tool-calls",
  readOutcome,
  noSession: /Session not found/i,
  prepare: (settings) => Effect.succeed({ OPENCODE_CONFIG_CONTENT: config(settings, options.config) })
})
