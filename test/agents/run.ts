/**
 * Runs an agent CLI from the cache as a person would, pointed at a base URL: a fresh HOME under a
 * run folder, stdin from /dev/null, a deadline after which its whole process group is killed (codex's
 * shim and gemini's relaunch leave orphans otherwise). Used by record-wire.ts and serve.agents.ts.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { bin, cache } from "./clis.js"

/** What a run printed and how it ended. */
export interface Ran {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly out: string
  readonly err: string
  /** The JSON lines of its stdout. */
  readonly events: ReadonlyArray<Record<string, unknown>>
}

const lines = (out: string): ReadonlyArray<Record<string, unknown>> =>
  out.split("\n").flatMap((line) => {
    try {
      const value: unknown = JSON.parse(line)
      return typeof value === "object" && value !== null ? [value as Record<string, unknown>] : []
    } catch {
      return []
    }
  })

/** Runs `bin` with `args` in `cwd`, `env` over a bare PATH, killed (group, SIGTERM then SIGKILL) after `deadline` ms. */
export const run = (
  file: string,
  args: ReadonlyArray<string>,
  options: { readonly cwd: string; readonly env: Readonly<Record<string, string>>; readonly deadline?: number }
): Promise<Ran> =>
  new Promise((resolve) => {
    const child = spawn(file, args, {
      cwd: options.cwd,
      env: { PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin`, NO_COLOR: "1", ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true
    })
    let [out, err] = ["", ""]
    child.stdout.on("data", (chunk) => (out += chunk))
    child.stderr.on("data", (chunk) => (err += chunk))
    const kill = (signal: NodeJS.Signals) => {
      try {
        process.kill(-child.pid!, signal)
      } catch {
        // already gone
      }
    }
    const term = setTimeout(() => {
      kill("SIGTERM")
      setTimeout(() => kill("SIGKILL"), 5_000).unref()
    }, options.deadline ?? 120_000)
    child.on("close", (code, signal) => {
      clearTimeout(term)
      kill("SIGKILL")
      resolve({ code, signal, out, err, events: lines(out) })
    })
  })

/** A fresh home for one CLI's runs: HOME, TMPDIR and (for opencode) the XDG folders, all inside `folder`. */
export const homeEnv = (folder: string): Record<string, string> => {
  const tmp = path.join(folder, "tmp")
  fs.mkdirSync(tmp, { recursive: true })
  return {
    HOME: folder,
    TMPDIR: tmp,
    XDG_CONFIG_HOME: path.join(folder, "xdg-config"),
    XDG_DATA_HOME: path.join(folder, "xdg-data"),
    XDG_STATE_HOME: path.join(folder, "xdg-state"),
    // opencode fetches its provider package on its first run: kept across runs in the cache
    XDG_CACHE_HOME: path.join(cache, "opencode-cache")
  }
}

/** Where a CLI runs and what it is pointed at: its folder, a base URL and the caller's key. */
export interface Pointed {
  readonly cwd: string
  readonly baseUrl: string
  readonly key: string
}

/** What claude runs in, pointed at `baseUrl` with `key`: no retries, updates, telemetry or reports (nor other traffic, unless not `quiet`). */
export const claudeEnv = (
  options: Pointed & { readonly env?: Readonly<Record<string, string>>; readonly quiet?: boolean }
): Record<string, string> => ({
  ...homeEnv(options.cwd),
  ANTHROPIC_BASE_URL: options.baseUrl,
  ANTHROPIC_API_KEY: options.key,
  CLAUDE_CODE_MAX_RETRIES: "0",
  DISABLE_AUTOUPDATER: "1",
  DISABLE_TELEMETRY: "1",
  DISABLE_ERROR_REPORTING: "1",
  ...(options.quiet === false ? {} : { CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1" }),
  ...options.env
})

/** claude -p, streamed JSON, pointed at `baseUrl` (no /v1) with `key`. */
export const claude = (
  prompt: string,
  options: Pointed & {
    readonly model?: string
    readonly extra?: ReadonlyArray<string>
    readonly env?: Readonly<Record<string, string>>
    readonly quiet?: boolean
  }
): Promise<Ran> =>
  run(bin("claude"), [
    "-p",
    "--model",
    options.model ?? "claude-sonnet-4-5",
    "--output-format",
    "stream-json",
    "--verbose",
    // root may not bypass permissions: the tools a turn needs are allowed by name
    "--allowedTools",
    "Read,Bash",
    ...(options.extra ?? []),
    "--",
    prompt
  ], { cwd: options.cwd, env: claudeEnv(options) })

/**
 * codex exec, JSON, in a fresh CODEX_HOME inside `cwd`: no update check or analytics, full access,
 * never asking; `args` (its provider, its model, `resume …`) before the prompt, `env` beside.
 */
export const codexExec = (
  prompt: string,
  cwd: string,
  args: ReadonlyArray<string>,
  env: Readonly<Record<string, string>>
): Promise<Ran> => {
  const codexHome = path.join(cwd, ".codex")
  fs.mkdirSync(codexHome, { recursive: true })
  return run(bin("codex"), [
    "exec",
    "--json",
    "--skip-git-repo-check",
    "-c",
    "check_for_update_on_startup=false",
    "-c",
    "analytics.enabled=false",
    "--sandbox",
    "danger-full-access",
    "-c",
    `approval_policy="never"`,
    ...args,
    "--",
    prompt
  ], { cwd, env: { ...homeEnv(cwd), CODEX_HOME: codexHome, ...env } })
}

/** codex exec, JSON, its provider `mock` at `baseUrl` (with /v1) on the Responses wire, with `key`. */
export const codex = (
  prompt: string,
  options: Pointed & { readonly model?: string; readonly resume?: string }
): Promise<Ran> =>
  codexExec(prompt, options.cwd, [
    "-m",
    options.model ?? "gpt-5.5",
    "-c",
    `model_provider="mock"`,
    "-c",
    `model_providers.mock.name="Mock"`,
    "-c",
    `model_providers.mock.base_url="${options.baseUrl}"`,
    "-c",
    `model_providers.mock.env_key="MOCK_OPENAI_KEY"`,
    "-c",
    `model_providers.mock.wire_api="responses"`,
    "-c",
    "model_providers.mock.request_max_retries=0",
    "-c",
    "model_providers.mock.stream_max_retries=0",
    "-c",
    `web_search="disabled"`,
    ...(options.resume === undefined ? [] : ["resume", options.resume])
  ], { MOCK_OPENAI_KEY: options.key })

/** opencode run, JSON, its provider `mock` (OpenAI-compatible: Chat Completions) at `baseUrl` (with /v1). */
export const opencode = (
  prompt: string,
  options: Pointed & {
    readonly models?: ReadonlyArray<string>
    readonly model?: string
    readonly session?: string
    /** The model of its small calls (the title): `mock-small` unless said, so a script can tell them apart. */
    readonly small?: string
  }
): Promise<Ran> => {
  const small = options.small ?? "mock-small"
  const models = [...new Set([...(options.models ?? ["mock-model"]), small])]
  const config = {
    autoupdate: false,
    small_model: `mock/${small}`,
    share: "disabled",
    permission: { "*": "allow" },
    tools: { websearch: false },
    provider: {
      mock: {
        npm: "@ai-sdk/openai-compatible",
        name: "Mock",
        options: { baseURL: options.baseUrl, apiKey: "{env:MOCK_OPENAI_KEY}" },
        models: Object.fromEntries(models.map((model) => [model, { name: model }]))
      }
    }
  }
  return run(bin("opencode"), [
    "run",
    "--format",
    "json",
    "-m",
    `mock/${options.model ?? models[0]}`,
    ...(options.session === undefined ? [] : ["--session", options.session]),
    "--",
    prompt
  ], {
    cwd: options.cwd,
    deadline: 240_000,
    env: {
      ...homeEnv(options.cwd),
      MOCK_OPENAI_KEY: options.key,
      OPENCODE_CONFIG_CONTENT: JSON.stringify(config),
      OPENCODE_DISABLE_AUTOUPDATE: "1",
      OPENCODE_DISABLE_MODELS_FETCH: "1",
      OPENCODE_DISABLE_SHARE: "1",
      OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
      OPENCODE_DISABLE_DEFAULT_PLUGINS: "1"
    }
  })
}
