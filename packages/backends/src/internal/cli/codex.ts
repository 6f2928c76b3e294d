import * as Backend from "@fallback/core/Backend"
import * as Classify from "@fallback/core/Classify"
import type * as Failure from "@fallback/core/Failure"
import type * as Place from "@fallback/core/Place"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as fs from "node:fs"
import * as path from "node:path"
import type * as Cli from "../../Cli.js"
import { atRung, type Description, type Rungs, rungsOf } from "./backend.js"
import { ended } from "./ended.js"
import * as Json from "./json.js"
import { landed } from "./landed.js"

/**
 * A model provider codex is pointed at: its base URL (ending in `/v1`) and the variable its key
 * is read from. Codex speaks only the Responses API to such a provider.
 *
 * @internal
 */
export interface Provider {
  readonly id: string
  readonly baseUrl: string
  readonly envKey: string
}

/** @internal */
export const install = "npm install -g @openai/codex"

const quote = (value: string): string => JSON.stringify(value)

const provider = (options: Cli.Options & { readonly provider?: Provider | undefined }) => {
  const given = options.provider
  if (given === undefined) return []
  const at = `model_providers.${given.id}`
  return [
    ["model_provider", quote(given.id)],
    [`${at}.name`, quote(given.id)],
    [`${at}.base_url`, quote(given.baseUrl)],
    [`${at}.env_key`, quote(given.envKey)],
    [`${at}.wire_api`, quote("responses")],
    ...(options.retries === true ? [] : [[`${at}.request_max_retries`, "0"], [`${at}.stream_max_retries`, "0"]])
  ].flatMap(([key, value]) => ["-c", `${key}=${value}`])
}

/**
 * The provider a user's own codex config chooses (`model_provider` at the top of
 * `$CODEX_HOME/config.toml`, else `~/.codex/config.toml`); undefined when it chooses none
 * (codex's built-in `openai`) or cannot be read.
 */
const chosenProvider = (env: Readonly<Record<string, string>>): string | undefined => {
  const home = env.CODEX_HOME ?? (env.HOME === undefined ? undefined : path.join(env.HOME, ".codex"))
  if (home === undefined) return undefined
  let text: string
  try {
    text = fs.readFileSync(path.join(home, "config.toml"), "utf8")
  } catch {
    return undefined
  }
  const top = text.split(/^\s*\[/m)[0] ?? ""
  return /^\s*model_provider\s*=\s*["']([^"']+)["']/m.exec(top)?.[1]
}

/** codex's own providers: their ids are reserved, so no setting of theirs can be changed. */
const builtIn = ["openai", "ollama", "lmstudio"]

/** The provider fallback runs codex's built-in OpenAI provider as: the same, with its retrying off. */
const mirror = "fallback-openai"

/**
 * What turns codex's own retrying off when no endpoint is set: for codex's built-in `openai` (whose
 * settings cannot be changed), a provider of fallback's that is the same (named OpenAI, codex's own
 * sign-in, its base URL by sign-in or OPENAI_BASE_URL, its organization headers) with no retries;
 * for a provider of the user's own config, its retries set to 0 for this run only. Nothing is
 * written into the user's config.
 */
const ownRetriesOff = (env: Readonly<Record<string, string>>): ReadonlyArray<readonly [string, string]> => {
  const chosen = chosenProvider(env)
  const off = (id: string) =>
    [[`model_providers.${id}.request_max_retries`, "0"], [`model_providers.${id}.stream_max_retries`, "0"]] as const
  if (chosen !== undefined && chosen !== "openai") return builtIn.includes(chosen) ? [] : off(chosen)
  const at = `model_providers.${mirror}`
  const baseUrl = env.OPENAI_BASE_URL?.trim()
  return [
    ["model_provider", quote(mirror)],
    [`${at}.name`, quote("OpenAI")],
    ...(baseUrl === undefined || baseUrl === "" ? [] : [[`${at}.base_url`, quote(baseUrl)] as const]),
    [`${at}.wire_api`, quote("responses")],
    [`${at}.requires_openai_auth`, "true"],
    [
      `${at}.env_http_headers`,
      "{ \"OpenAI-Organization\" = \"OPENAI_ORGANIZATION\", \"OpenAI-Project\" = \"OPENAI_PROJECT\" }"
    ],
    ...off(mirror)
  ]
}

/**
 * codex's sandbox for each rung it expresses exactly, asking for nothing (a headless turn has no
 * one to ask; the sandbox is the bound). Its workspace-write sandbox also runs any command and
 * writes the temp folders, wider than `edit`; its own default asks in ways a headless turn cannot
 * answer for certain: so `ask` and `edit` are rungs codex cannot honour.
 *
 * @internal
 */
export const sandboxes: Rungs<ReadonlyArray<string>> = {
  "read-only": ["--sandbox", "read-only", "-c", `approval_policy=${quote("never")}`],
  full: ["--sandbox", "danger-full-access", "-c", `approval_policy=${quote("never")}`]
}

/** @internal */
export const argv = (
  turn: Cli.Turn,
  options: Cli.Options & { readonly provider?: Provider | undefined },
  env: Readonly<Record<string, string>> = {}
) => [
  "exec",
  "--json",
  "--skip-git-repo-check",
  "-m",
  turn.model,
  "-c",
  "check_for_update_on_startup=false",
  "-c",
  "analytics.enabled=false",
  ...provider(options),
  ...(options.provider !== undefined || options.retries === true
    ? []
    : ownRetriesOff(env).flatMap(([key, value]) => ["-c", `${key}=${value}`])),
  ...(turn.settings.effort === undefined ? [] : ["-c", `model_reasoning_effort=${quote(turn.settings.effort)}`]),
  ...(turn.settings.permission === undefined ? [] : atRung("codex", sandboxes, turn.settings.permission)),
  ...(turn.settings.webSearch ? [] : ["-c", `web_search=${quote("disabled")}`]),
  ...(turn.resume === undefined ? [] : ["resume", turn.resume]),
  "--",
  turn.prompt
]

/** @internal */
export const live = (fields: Json.Fields): ReadonlyArray<Backend.Event> => {
  const threadId = Json.text(fields, "thread_id")
  if (fields.type === "thread.started" && threadId !== undefined) {
    return [Backend.Event.SessionStarted({ sessionId: threadId })]
  }
  if (fields.type !== "item.completed") return []
  const item = Json.field(fields, "item")
  switch (Json.text(item, "type")) {
    case "reasoning":
      return [Backend.Event.Thinking({ text: Json.text(item, "text") ?? "" })]
    case "agent_message":
      return [Backend.Event.Text({ text: Json.text(item, "text") ?? "" })]
    case "command_execution":
      return [Backend.Event.ToolUse({ name: "shell", input: { command: Json.text(item, "command") ?? "" } })]
    case "mcp_tool_call":
      return [
        Backend.Event.ToolUse({ name: Json.text(item, "tool") ?? "mcp", input: Json.field(item, "arguments") ?? {} })
      ]
    case "web_search":
      return [Backend.Event.ToolUse({ name: "web_search", input: { query: Json.text(item, "query") ?? "" } })]
    default:
      return []
  }
}

const reconnecting = /^Reconnecting\.\.\./

/** @internal */
export const settled = (line: { readonly stream: string; readonly text: string }): boolean => {
  const fields = line.stream === "stdout" ? Json.object(line.text) : undefined
  return fields?.type === "error" && reconnecting.test(Json.text(fields, "message") ?? "")
}

const noise = /^Reading additional input from stdin|^WARNING: proceeding, even though/

/**
 * The HTTP status a codex error message carries, as codex writes it ("unexpected status 401
 * Unauthorized", "last status: 429 Too Many Requests").
 */
const statusIn = (message: string): number | undefined => {
  const found = /\bstatus:?\s+(\d{3})\b/i.exec(message) ?? /\b([45]\d\d) (?:[A-Z][a-z]+)/.exec(message)
  return found === null ? undefined : Number(found[1])
}

const judge = (message: string, place: Place.Place): Failure.Failure => {
  const status = statusIn(message)
  return status === undefined ? Classify.byMessage(message, place) : Classify.byStatus(status, message, place)
}

/** @internal */
export const readOutcome = (finished: Cli.Finished, place: Place.Place): Cli.Outcome => {
  const events = Json.objects(finished.stdout)
  const sessionId = Json.text(events.find((fields) => fields.type === "thread.started"), "thread_id")
  const completed = Json.last(events, (fields) => fields.type === "turn.completed")
  if (completed !== undefined && finished.exitCode === 0 && finished.signal === null) {
    const content = events.flatMap(live).filter((event) => event._tag !== "SessionStarted")
    const answer = Json.last(content, (event) => event._tag === "Text")
    const usage = Json.field(completed, "usage")
    return landed(sessionId, content, answer?._tag === "Text" ? answer.text : "", {
      input: Json.number(usage, "input_tokens") ?? 0,
      output: Json.number(usage, "output_tokens") ?? 0
    })
  }
  const failed = Json.last(events, (fields) => fields.type === "turn.failed")
  const failedMessage = Json.text(Json.field(failed, "error"), "message")
  if (failedMessage !== undefined) return Result.fail(judge(failedMessage, place))
  const error = Json.last(events, (fields) => fields.type === "error")
  const errorMessage = Json.text(error, "message")
  if (errorMessage !== undefined) {
    const inner = /^Reconnecting\.\.\. [^(]*\((.*)\)$/s.exec(errorMessage)
    return Result.fail(judge(inner === null ? errorMessage : inner[1]!, place))
  }
  const stderr = Classify.tail(finished.stderr.split("\n").filter((line) => !noise.test(line)).join("\n"))
  return Result.fail(
    ended(finished, place, { install, message: stderr, without: "completing its turn", read: judge })
  )
}

/** @internal */
export const description = (options: Cli.Options & { readonly provider?: Provider | undefined }): Description => ({
  module: "Codex",
  cli: "codex",
  install,
  capabilities: {
    webSearchOff: true,
    callbacks: false,
    effort: true,
    permission: rungsOf(sandboxes),
    skills: false,
    resume: true,
    models: []
  },
  argv: (turn, _, env) => argv(turn, options, env),
  quiet: () => ({}),
  home: (configDir) => ({ CODEX_HOME: configDir }),
  passes: [
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "CODEX_HOME",
    "OPENAI_ORGANIZATION",
    "OPENAI_PROJECT",
    ...(options.provider === undefined ? [] : [options.provider.envKey])
  ],
  live,
  settled,
  final: (fields) => fields.type === "turn.completed" || fields.type === "turn.failed",
  readOutcome,
  noSession: /no rollout found/i,
  prepare: (_, env) =>
    Effect.sync(() => {
      if (env.CODEX_HOME !== undefined) fs.mkdirSync(env.CODEX_HOME, { recursive: true })
      return {}
    }),
  sessions: (env) =>
    env.CODEX_HOME !== undefined
      ? `${env.CODEX_HOME}/sessions`
      : env.HOME === undefined
      ? undefined
      : `${env.HOME}/.codex/sessions`
})
