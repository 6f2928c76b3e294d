import * as fs from "node:fs"
import * as path from "node:path"

import type * as Account from "@fallback/core/Account"

type Endpoint = Account.Endpoint

/** The variable an endpoint's key reaches codex and opencode in. */
const keyVariable = "FALLBACK_ENDPOINT_KEY"

/** The ids of codex's own providers, which no config may give settings to. */
const codexReserved = ["openai", "ollama", "lmstudio"]

/** What a CLI is given to reach an endpoint. */
export interface Reach {
  /** Variables for the child, as an account's: plain settings, or `{ fromEnv }` for the key. */
  readonly env: Readonly<Record<string, string | { readonly fromEnv: string }>>
  /** Options for the CLI's backend (codex's provider, opencode's config). */
  readonly options: Readonly<Record<string, unknown>>
  /** A settings file in the account's config dir, merged into what is there: its path in the dir and the settings. */
  readonly settings?:
    | { readonly file: string; readonly merge: Readonly<Record<string, Record<string, unknown>>> }
    | undefined
}

const keyOr = (endpoint: Endpoint, variable: string) =>
  ({ [variable]: endpoint.key ?? "none" }) as Record<string, string | { readonly fromEnv: string }>

/** What gemini's settings hold so that it takes its key from GEMINI_API_KEY and never retries by itself. */
const geminiSettings = {
  security: { auth: { selectedType: "gemini-api-key" } },
  general: { maxAttempts: 1, enableAutoUpdate: false, enableAutoUpdateNotification: false },
  privacy: { usageStatisticsEnabled: false },
  telemetry: { enabled: false }
}

/** @internal */
export const reach = (cli: string, endpoint: Endpoint, model: string): Reach | undefined => {
  const provider = endpoint.provider ?? "fallback"
  switch (cli) {
    case "claude":
      return {
        env: {
          ANTHROPIC_BASE_URL: endpoint.baseUrl,
          ...(endpoint.key === undefined ? {} : { ANTHROPIC_API_KEY: endpoint.key })
        },
        options: {}
      }
    case "codex":
      return {
        env: keyOr(endpoint, keyVariable),
        // codex refuses settings for its own providers' ids (openai, ollama, lmstudio): the endpoint's is another
        options: {
          provider: {
            id: codexReserved.includes(provider) ? `${provider}-endpoint` : provider,
            baseUrl: endpoint.baseUrl,
            envKey: keyVariable
          }
        }
      }
    case "gemini":
      return {
        env: { GOOGLE_GEMINI_BASE_URL: endpoint.baseUrl, ...keyOr(endpoint, "GEMINI_API_KEY") },
        options: {},
        settings: { file: path.join(".gemini", "settings.json"), merge: geminiSettings }
      }
    case "opencode": {
      // opencode's model is PROVIDER/MODEL; the endpoint serves the models its places name
      const at = model.indexOf("/")
      const id = at > 0 ? model.slice(0, at) : provider
      const name = at > 0 ? model.slice(at + 1) : model
      return {
        env: keyOr(endpoint, keyVariable),
        options: {
          config: {
            provider: {
              [id]: {
                npm: "@ai-sdk/openai-compatible",
                name: id,
                options: { baseURL: endpoint.baseUrl, apiKey: `{env:${keyVariable}}` },
                models: { [name]: { name } }
              }
            }
          }
        }
      }
    }
    default:
      return undefined
  }
}

/**
 * Merges `merge` into the JSON settings file `file` (section by section, the user's other settings
 * kept), written whole to a new file and moved into place. A file that is not JSON is left alone
 * and said.
 *
 * @internal
 */
export const writeSettings = (file: string, merge: Readonly<Record<string, Record<string, unknown>>>): void => {
  let current: Record<string, unknown> = {}
  if (fs.existsSync(file)) {
    const parsed: unknown = JSON.parse(fs.readFileSync(file, "utf8"))
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) {
      current = parsed as Record<string, unknown>
    }
  }
  const next: Record<string, unknown> = { ...current }
  for (const [section, values] of Object.entries(merge)) {
    const was = current[section]
    next[section] = typeof was === "object" && was !== null && !Array.isArray(was)
      ? deepMerge(was as Record<string, unknown>, values)
      : values
  }
  if (JSON.stringify(next) === JSON.stringify(current)) return
  fs.mkdirSync(path.dirname(file), { recursive: true })
  const temporary = `${file}.${process.pid}.tmp`
  fs.writeFileSync(temporary, JSON.stringify(next, null, 2) + "\n")
  fs.renameSync(temporary, file)
}

const deepMerge = (into: Record<string, unknown>, from: Record<string, unknown>): Record<string, unknown> => {
  const out: Record<string, unknown> = { ...into }
  for (const [key, value] of Object.entries(from)) {
    const was = into[key]
    out[key] = typeof value === "object" && value !== null && typeof was === "object" && was !== null
      ? deepMerge(was as Record<string, unknown>, value as Record<string, unknown>)
      : value
  }
  return out
}
