import { Backend, Failure } from "@fallback/core"
import type { Place, Settings } from "@fallback/core"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Cli from "../Cli.js"
import type { Description } from "./backend.js"
import * as Classify from "./classify.js"
import * as Json from "./json.js"
import { landed } from "./turned.js"

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

/**
 * The config every turn runs with (`OPENCODE_CONFIG_CONTENT`): the backend's own config, with
 * updates and sharing off and web search off when the agent may not search.
 *
 * @internal
 */
export const config = (settings: Settings.Settings, given: object | undefined): string =>
  JSON.stringify({
    ...given,
    autoupdate: false,
    share: "disabled",
    ...(settings.webSearch ? {} : { tools: { ...(given as { tools?: object } | undefined)?.tools, websearch: false } })
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
  if (reported !== undefined) return Either.left(judge(reported, place))
  const stderr = Classify.tail(finished.stderr.replace(ansi, ""))
  return Either.left(Classify.ended(finished, place, { install, message: stderr, without: "finishing its step" }))
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
    permission: false,
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
  readOutcome,
  noSession: /Session not found/i,
  prepare: (settings) => Effect.succeed({ OPENCODE_CONFIG_CONTENT: config(settings, options.config) })
})
