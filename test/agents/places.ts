/**
 * Each agent CLI as the agents suite drives it: its backend pointed at the mock provider through an
 * account (config folder and key variable), a place per fault (the fault rides in the model name),
 * and the recording of what it printed.
 */
import { Claude, Codex, Gemini, OpenCode } from "@fallback/backends"
import type { Cli as CliOptions } from "@fallback/backends"
import { Account, type Backend, Place } from "@fallback/core"
import * as fs from "node:fs"
import * as path from "node:path"
import { bin, cache } from "./clis.js"
import type { Cli, Fault } from "./expected.js"

/** The fake key every CLI sends, shaped like a real one so that masking it is tested too. */
export const key = "sk-ant-api03-fakefakefakefakefakefake0000"
export const keyVariable = "FALLBACK_AGENTS_FAKE_KEY"

const models: Record<Cli, string> = {
  claude: "claude-sonnet-4-5",
  codex: "gpt-5.5",
  gemini: "gemini-2.5-flash",
  opencode: "mock/mock-model"
}

/** The model that makes the mock play a fault. */
/** What a place plays: a fault of the mock, `retry` (scripted to fail once), or `killed` (hangs, to be killed from outside). */
export type Play = Fault | "hang" | "stall" | "think" | "retry" | "killed"

export const modelFor = (cli: Cli, play: Play): string =>
  play === "answer"
    ? models[cli]
    : play === "retry"
    ? `${models[cli]}-retry`
    : play === "killed"
    ? `${models[cli]}-killed-fault-hang`
    : `${models[cli]}-fault-${play}`

export const placeFor = (cli: Cli, account: string, fault: Play): Place.Place =>
  new Place.Place({ cli, account, model: modelFor(cli, fault) })

/** An account of a CLI with its own config folder under `home`, pointed at the mock. */
export const accountFor = (cli: Cli, name: string, home: string, url: string): Account.Account => {
  const configDir = path.join(home, `${cli}-${name}`)
  fs.mkdirSync(configDir, { recursive: true })
  const fromKey = { fromEnv: keyVariable }
  switch (cli) {
    case "claude":
      return new Account.Account({ name, configDir, env: { ANTHROPIC_BASE_URL: url, ANTHROPIC_API_KEY: fromKey } })
    case "codex":
      return new Account.Account({ name, configDir, env: { MOCK_OPENAI_KEY: fromKey } })
    case "gemini":
      fs.mkdirSync(path.join(configDir, ".gemini"), { recursive: true })
      fs.writeFileSync(
        path.join(configDir, ".gemini", "settings.json"),
        JSON.stringify({
          security: { auth: { selectedType: "gemini-api-key" } },
          privacy: { usageStatisticsEnabled: false },
          telemetry: { enabled: false },
          general: { enableAutoUpdate: false, enableAutoUpdateNotification: false }
        })
      )
      return new Account.Account({ name, configDir, env: { GEMINI_API_KEY: fromKey, GOOGLE_GEMINI_BASE_URL: url } })
    case "opencode":
      return new Account.Account({ name, configDir, env: { MOCK_OPENAI_KEY: fromKey } })
  }
}

const faultModels = (cli: Cli, all: ReadonlyArray<string>) =>
  Object.fromEntries(all.map((fault) => [modelFor(cli, fault as Play).replace(/^mock\//, ""), { name: fault }]))

/**
 * The backend of a CLI as the suite runs it: the binary from the cache, turns in `home`, the
 * suite's HOME and temp folder, and `record` given every finished run.
 */
export const backendFor = (
  cli: Cli,
  options: {
    readonly home: string
    readonly url: string
    readonly faults: ReadonlyArray<string>
    readonly dataHome?: string
  },
  record: (finished: CliOptions.Finished) => void
): Backend.Backend => {
  const tmp = path.join(options.home, "tmp")
  fs.mkdirSync(tmp, { recursive: true })
  const common = {
    bin: bin(cli),
    cwd: options.home,
    env: { HOME: options.home, TMPDIR: tmp },
    record
  }
  switch (cli) {
    case "claude":
      return Claude.make(common)
    case "codex":
      return Codex.make({
        ...common,
        provider: { id: "mock", baseUrl: `${options.url}/v1`, envKey: "MOCK_OPENAI_KEY" }
      })
    case "gemini":
      return Gemini.make(common)
    case "opencode":
      return OpenCode.make({
        ...common,
        env: {
          ...common.env,
          XDG_CONFIG_HOME: path.join(options.home, "xdg-config"),
          XDG_CACHE_HOME: path.join(cache, "opencode-cache"),
          XDG_STATE_HOME: path.join(options.home, "xdg-state"),
          ...(options.dataHome === undefined ? {} : { XDG_DATA_HOME: options.dataHome })
        },
        config: {
          provider: {
            mock: {
              npm: "@ai-sdk/openai-compatible",
              name: "Mock",
              options: { baseURL: `${options.url}/v1`, apiKey: "{env:MOCK_OPENAI_KEY}" },
              models: faultModels(cli, ["answer", ...options.faults])
            }
          }
        }
      })
  }
}
