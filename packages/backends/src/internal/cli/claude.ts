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
export const install = "npm install -g @anthropic-ai/claude-code"

/** The variable a turn's plugin of skills is named in, from `prepare` to `argv`. */
const skillsAt = "FALLBACK_SKILLS_PLUGIN"

/**
 * The skills an agent carries, as a plugin claude loads for the session (`--plugin-dir`): a folder
 * that lives as long as the session, holding the plugin's manifest and a link to each skill's
 * folder (its SKILL.md and files), named by the folder (`fallback-skills:NAME` in claude).
 *
 * @internal
 */
export const skillsPlugin = (skills: ReadonlyArray<string>) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "fallback-skills-"))
      fs.mkdirSync(path.join(dir, ".claude-plugin"))
      fs.writeFileSync(
        path.join(dir, ".claude-plugin", "plugin.json"),
        JSON.stringify({ name: "fallback-skills", description: "the skills fallback carries", version: "0.0.0" })
      )
      fs.mkdirSync(path.join(dir, "skills"))
      const names = new Set<string>()
      for (const skill of skills) {
        const base = path.basename(path.resolve(skill)).replace(/[^A-Za-z0-9_-]/g, "-") || "skill"
        let name = base
        for (let i = 2; names.has(name); i++) name = `${base}-${i}`
        names.add(name)
        fs.symlinkSync(path.resolve(skill), path.join(dir, "skills", name))
      }
      return dir
    }),
    (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
  )

/**
 * claude's `--permission-mode` for each rung: it expresses every one.
 *
 * @internal
 */
export const permissionModes: Rungs<string> = {
  "read-only": "plan",
  ask: "default",
  edit: "acceptEdits",
  full: "bypassPermissions"
}

/** @internal */
export const argv = (turn: Cli.Turn, env: Readonly<Record<string, string>> = {}): ReadonlyArray<string> => [
  "-p",
  "--model",
  turn.model,
  "--output-format",
  "stream-json",
  "--verbose",
  // Each piece of the answer as it comes (thinking included), not each block once it is whole: a
  // model that thinks for a minute is then seen to be alive within its first byte's limit.
  "--include-partial-messages",
  ...(turn.resume === undefined ? [] : ["--resume", turn.resume]),
  ...(turn.settings.effort === undefined ? [] : ["--effort", turn.settings.effort]),
  ...(turn.settings.permission === undefined
    ? []
    : ["--permission-mode", atRung("claude", permissionModes, turn.settings.permission)]),
  ...(turn.settings.webSearch ? [] : ["--disallowedTools", "WebSearch"]),
  ...(env[skillsAt] === undefined ? [] : ["--plugin-dir", env[skillsAt]]),
  "--",
  turn.prompt
]

const isApiError = (fields: Json.Fields): boolean =>
  fields.error !== undefined || fields.is_api_error_message === true ||
  Json.field(fields, "message")?.is_api_error_message === true

/** The blocks of an assistant event that is an answer rather than an API error, of the given kinds. */
const blocks = (fields: Json.Fields, kinds: ReadonlySet<string>): ReadonlyArray<Backend.Event> =>
  fields.type !== "assistant" || isApiError(fields)
    ? []
    : Json.list(Json.field(fields, "message"), "content").flatMap((block): ReadonlyArray<Backend.Event> => {
      const kind = Json.text(block, "type") ?? ""
      if (!kinds.has(kind)) return []
      switch (kind) {
        case "thinking":
          return [Backend.Event.Thinking({ text: Json.text(block, "thinking") ?? "" })]
        case "redacted_thinking":
          return [Backend.Event.Thinking({ text: "" })]
        case "text":
          return [Backend.Event.Text({ text: Json.text(block, "text") ?? "" })]
        default:
          return [
            Backend.Event.ToolUse({ name: Json.text(block, "name") ?? "", input: Json.field(block, "input") ?? {} })
          ]
      }
    })

const whole = new Set(["thinking", "redacted_thinking", "text", "tool_use"])
const tools = new Set(["tool_use"])

/** A piece of a block as the API streamed it (`--include-partial-messages`): thinking or text. */
const piece = (fields: Json.Fields): ReadonlyArray<Backend.Event> => {
  const event = Json.field(fields, "event")
  if (Json.text(event, "type") !== "content_block_delta") return []
  const delta = Json.field(event, "delta")
  switch (Json.text(delta, "type")) {
    case "thinking_delta":
      return [Backend.Event.Thinking({ text: Json.text(delta, "thinking") ?? "" })]
    case "text_delta":
      return [Backend.Event.Text({ text: Json.text(delta, "text") ?? "" })]
    default:
      return []
  }
}

/** @internal */
export const live = (fields: Json.Fields): ReadonlyArray<Backend.Event> => reader()(fields)

/**
 * A reader of one run's stream. Thinking and text come piece by piece as the API streams them
 * (`stream_event` lines, `--include-partial-messages`), and claude repeats each block whole
 * afterwards: once pieces have come, the whole blocks give only the tool calls; until then (a
 * claude that streamed none) they give everything.
 *
 * @internal
 */
export const reader = () => {
  let pieces = false
  return (fields: Json.Fields): ReadonlyArray<Backend.Event> => {
    const sessionId = Json.text(fields, "session_id")
    if (fields.type === "system" && fields.subtype === "init" && sessionId !== undefined) {
      return [Backend.Event.SessionStarted({ sessionId })]
    }
    if (fields.type === "stream_event") {
      const got = piece(fields)
      if (got.length > 0) pieces = true
      return got
    }
    return blocks(fields, pieces ? tools : whole)
  }
}

const content = (fields: Json.Fields) => blocks(fields, whole)

/** @internal */
export const events = (): (line: string) => ReadonlyArray<Backend.Event> => {
  const read = reader()
  return (line) => {
    const fields = Json.object(line)
    return fields === undefined ? [] : read(fields)
  }
}

/** @internal */
export const settled = (line: { readonly stream: string; readonly text: string }): boolean => {
  if (line.stream !== "stdout") return false
  const fields = Json.object(line.text)
  return fields?.type === "system" && fields.subtype === "api_retry"
}

const said = (fields: Json.Fields): string =>
  [
    ...Json.list(fields, "errors").filter((error): error is string => typeof error === "string"),
    Json.text(fields, "result") ?? "",
    Json.text(fields, "api_error_type") ?? ""
  ].filter((part) => part.length > 0).join("; ")

/** @internal */
export const readOutcome = (finished: Cli.Finished, place: Place.Place): Cli.Outcome => {
  const events = Json.objects(finished.stdout)
  const result = Json.last(events, (fields) => fields.type === "result")
  const init = events.find((fields) => fields.type === "system" && fields.subtype === "init")
  const sessionId = Json.text(init, "session_id") ?? Json.text(result, "session_id")
  if (result !== undefined && result.is_error === false && finished.exitCode === 0 && finished.signal === null) {
    const usage = Json.field(result, "usage")
    return landed(sessionId, events.flatMap(content), Json.text(result, "result") ?? "", {
      input: Json.number(usage, "input_tokens") ?? 0,
      output: Json.number(usage, "output_tokens") ?? 0
    })
  }
  return Result.fail(failure(finished, events, result, place))
}

const failure = (
  finished: Cli.Finished,
  events: ReadonlyArray<Json.Fields>,
  result: Json.Fields | undefined,
  place: Place.Place
): Failure.Failure => {
  const status = Json.number(result, "api_error_status")
  if (result !== undefined && status !== undefined) return Classify.byStatus(status, said(result), place)
  const retry = Json.last(events, (fields) => fields.type === "system" && fields.subtype === "api_retry")
  const retryStatus = Json.number(retry, "error_status")
  if (retry !== undefined && retryStatus !== undefined) {
    return Classify.byStatus(retryStatus, Json.text(retry, "error") ?? `HTTP ${retryStatus}`, place)
  }
  const apiError = Json.last(events, (fields) => fields.type === "assistant" && isApiError(fields))
  const apiStatus = Json.number(apiError, "api_error_status")
  if (apiError !== undefined && apiStatus !== undefined) {
    return Classify.byStatus(apiStatus, Json.text(apiError, "error") ?? `HTTP ${apiStatus}`, place)
  }
  // A retry with no status is a connection that was refused or reset: claude keeps retrying it until
  // stopped, and the stop is not what went wrong.
  if (retry !== undefined && retry.error_status === null) {
    return new Failure.ConnectionLost({
      place,
      said: Failure.said(Json.text(retry, "error") ?? "claude could not connect to the API")
    })
  }
  return ended(finished, place, {
    install,
    message: result === undefined ? Classify.tail(finished.stderr) : said(result),
    without: "its result",
    trapped: result === undefined,
    mayBeBroken: result === undefined
  })
}

/** @internal */
export const description: Description = {
  module: "Claude",
  cli: "claude",
  install,
  capabilities: {
    webSearchOff: true,
    callbacks: false,
    effort: true,
    permission: rungsOf(permissionModes),
    skills: true,
    resume: true,
    models: []
  },
  argv: (turn, _, env) => argv(turn, env),
  prepare: (settings) =>
    settings.skills.length === 0
      ? Effect.succeed({})
      : Effect.map(skillsPlugin(settings.skills), (dir) => ({ [skillsAt]: dir })),
  quiet: (options) => ({
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_ERROR_REPORTING: "1",
    ...(options.retries === true ? {} : { CLAUDE_CODE_MAX_RETRIES: "0" })
  }),
  home: (configDir) => ({ CLAUDE_CONFIG_DIR: configDir }),
  passes: [
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_BASE_URL",
    "CLAUDE_CONFIG_DIR",
    "CLAUDE_CODE_OAUTH_TOKEN"
  ],
  live,
  reader,
  settled,
  final: (fields) => fields.type === "result",
  readOutcome,
  noSession: /No conversation found/i,
  sessions: (env) =>
    env.CLAUDE_CONFIG_DIR !== undefined
      ? `${env.CLAUDE_CONFIG_DIR}/projects`
      : env.HOME === undefined
      ? undefined
      : `${env.HOME}/.claude/projects`
}
