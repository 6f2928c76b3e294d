// Endpoints from the config alone: what each of the four CLIs is given to reach an Anthropic- or
// OpenAI-compatible endpoint, seen by stand-ins on PATH that record it (test/fixtures/recorders).
// The real CLIs reaching the loopback mock this way are in `npm run test:agents`.
import { spawnSync } from "node:child_process"
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

import { describe, expect, it } from "@effect/vitest"

const root = fileURLToPath(new URL("..", import.meta.url))
const bin = join(root, "node_modules", ".bin", "fallback")
const recorders = join(root, "test", "fixtures", "recorders")
const key = "local-endpoint-key-for-the-test"

describe("endpoints in the config", () => {
  it(
    "point claude, codex, gemini and opencode at an endpoint, with their own retrying off, and no file by hand",
    () => {
      const home = mkdtempSync(join(tmpdir(), "fallback-endpoint-"))
      const geminiDir = join(home, "gemini-g")
      mkdirSync(join(geminiDir, ".gemini"), { recursive: true })
      writeFileSync(
        join(geminiDir, ".gemini", "settings.json"),
        JSON.stringify({ ui: { theme: "mine" }, general: { vimMode: true } })
      )
      const config = join(home, "config.json")
      const endpoint = { key: { fromEnv: "LOCAL_KEY" } }
      writeFileSync(
        config,
        JSON.stringify({
          clis: {
            claude: { endpoint: { baseUrl: "http://127.0.0.1:9", ...endpoint } },
            codex: { endpoint: { baseUrl: "http://127.0.0.1:9/v1", provider: "local", ...endpoint } },
            opencode: { endpoint: { baseUrl: "http://127.0.0.1:9/v1", ...endpoint } }
          },
          accounts: {
            gemini: [
              { name: "g", configDir: geminiDir, endpoint: { baseUrl: "http://127.0.0.1:9", ...endpoint } },
              { name: "plain", configDir: join(home, "gemini-plain") }
            ]
          }
        })
      )
      const run = (place: string) =>
        spawnSync(bin, ["run", place, "--attempts", "1", "Hello"], {
          encoding: "utf8",
          env: { PATH: `${recorders}:${process.env.PATH ?? ""}`, HOME: home, FALLBACK_CONFIG: config, LOCAL_KEY: key }
        })
      for (
        const place of [
          "claude/claude-opus-5",
          "codex/gpt-5.5",
          "gemini@g/gemini-2.5-flash",
          "opencode/local/qwen3:8b",
          "gemini@plain/gemini-2.5-flash"
        ]
      ) {
        const ran = run(place)
        expect(ran.status, place).not.toBe(0)
        expect(ran.stderr, place).not.toContain(key)
      }
      const recorded: Array<{ cli: string; argv: Array<string>; env: Record<string, string> }> = readFileSync(
        join(home, "recorded.jsonl"),
        "utf8"
      ).trim().split("\n").map((line) => JSON.parse(line))
      const of = (cli: string) => recorded.find((r) => r.cli === cli)!

      expect(of("claude").env).toMatchObject({
        ANTHROPIC_BASE_URL: "http://127.0.0.1:9",
        ANTHROPIC_API_KEY: key,
        CLAUDE_CODE_MAX_RETRIES: "0"
      })

      const codex = of("codex").argv.join(" ")
      for (
        const setting of [
          "model_provider=\"local\"",
          "model_providers.local.base_url=\"http://127.0.0.1:9/v1\"",
          "model_providers.local.env_key=\"FALLBACK_ENDPOINT_KEY\"",
          "model_providers.local.wire_api=\"responses\"",
          "model_providers.local.request_max_retries=0",
          "model_providers.local.stream_max_retries=0"
        ]
      ) expect(codex).toContain(`-c ${setting}`)
      expect(of("codex").env.FALLBACK_ENDPOINT_KEY).toBe(key)

      expect(of("gemini").env).toMatchObject({
        GOOGLE_GEMINI_BASE_URL: "http://127.0.0.1:9",
        GEMINI_API_KEY: key,
        GEMINI_CLI_HOME: geminiDir
      })
      expect(JSON.parse(readFileSync(join(geminiDir, ".gemini", "settings.json"), "utf8"))).toEqual({
        ui: { theme: "mine" },
        general: { vimMode: true, maxAttempts: 1, enableAutoUpdate: false, enableAutoUpdateNotification: false },
        security: { auth: { selectedType: "gemini-api-key" } },
        privacy: { usageStatisticsEnabled: false },
        telemetry: { enabled: false }
      })

      // an account with no endpoint still has gemini's own retrying turned off, in its config dir
      expect(JSON.parse(readFileSync(join(home, "gemini-plain", ".gemini", "settings.json"), "utf8"))).toEqual({
        general: { maxAttempts: 1 }
      })

      expect(of("opencode").argv).toContain("local/qwen3:8b")
      expect(JSON.parse(of("opencode").env.OPENCODE_CONFIG_CONTENT!).provider).toEqual({
        local: {
          npm: "@ai-sdk/openai-compatible",
          name: "local",
          options: { baseURL: "http://127.0.0.1:9/v1", apiKey: "{env:FALLBACK_ENDPOINT_KEY}" },
          models: { "qwen3:8b": { name: "qwen3:8b" } }
        }
      })
      expect(of("opencode").env.FALLBACK_ENDPOINT_KEY).toBe(key)
      expect(readFileSync(config, "utf8")).not.toContain(key)
    },
    120_000
  )

  it(
    "with no endpoint, each CLI's own retrying is off by flags and variables, and no file of the user's is touched",
    () => {
      const home = mkdtempSync(join(tmpdir(), "fallback-retries-"))
      const config = join(home, "config.json")
      writeFileSync(
        config,
        JSON.stringify({ accounts: { codex: [{ name: "azure", configDir: join(home, "codex-azure") }] } })
      )
      // the user's own files: gemini's settings, codex's config choosing its own provider, admin system settings
      const files: Record<string, string> = {
        [join(home, ".gemini", "settings.json")]: JSON.stringify({ general: { maxAttempts: 7, vimMode: true } }),
        [join(home, "codex-azure", "config.toml")]:
          "model_provider = \"azure\"\n\n[model_providers.azure]\nname = \"Azure\"\n",
        [join(home, ".gemini", "oauth_creds.json")]: "{\"refresh_token\":\"not-a-real-token\"}"
      }
      for (const [file, text] of Object.entries(files)) {
        mkdirSync(join(file, ".."), { recursive: true })
        writeFileSync(file, text)
      }
      const run = (place: string) =>
        spawnSync(bin, ["run", place, "--attempts", "1", "Hello"], {
          encoding: "utf8",
          env: {
            PATH: `${recorders}:${process.env.PATH ?? ""}`,
            HOME: home,
            FALLBACK_CONFIG: config,
            OPENAI_BASE_URL: "http://127.0.0.1:9/v1"
          }
        })
      for (
        const place of [
          "claude/claude-opus-5",
          "codex/gpt-5.5",
          "codex@azure/gpt-5.5",
          "gemini/gemini-2.5-flash",
          "opencode/x/y"
        ]
      ) {
        expect(run(place).status, place).not.toBe(0)
      }
      const recorded: Array<{ cli: string; argv: Array<string>; env: Record<string, string> }> = readFileSync(
        join(home, "recorded.jsonl"),
        "utf8"
      ).trim().split("\n").map((line) => JSON.parse(line))
      const of = (cli: string) => recorded.filter((r) => r.cli === cli)

      expect(of("claude")[0]!.env.CLAUDE_CODE_MAX_RETRIES).toBe("0")

      // codex's built-in OpenAI provider cannot be changed: fallback runs it as its own, the same with no retries
      const [builtIn, azure] = of("codex").map((r) => r.argv.join(" "))
      for (
        const setting of [
          "model_provider=\"fallback-openai\"",
          "model_providers.fallback-openai.name=\"OpenAI\"",
          "model_providers.fallback-openai.base_url=\"http://127.0.0.1:9/v1\"",
          "model_providers.fallback-openai.wire_api=\"responses\"",
          "model_providers.fallback-openai.requires_openai_auth=true",
          "model_providers.fallback-openai.request_max_retries=0",
          "model_providers.fallback-openai.stream_max_retries=0"
        ]
      ) expect(builtIn).toContain(`-c ${setting}`)
      // a provider of the user's own config keeps being the one used, its retries 0 for this run
      expect(azure).not.toContain("model_provider=")
      expect(azure).toContain(
        "-c model_providers.azure.request_max_retries=0 -c model_providers.azure.stream_max_retries=0"
      )

      // gemini runs in a home of fallback's: its .gemini links to the user's (sign-in included), with
      // the user's settings copied and maxAttempts 1
      const managed = join(home, "homes", "gemini")
      expect(of("gemini")[0]!.env.GEMINI_CLI_HOME).toBe(managed)
      expect(lstatSync(join(managed, ".gemini", "oauth_creds.json")).isSymbolicLink()).toBe(true)
      expect(readFileSync(join(managed, ".gemini", "oauth_creds.json"), "utf8")).toContain("not-a-real-token")
      expect(JSON.parse(readFileSync(join(managed, ".gemini", "settings.json"), "utf8"))).toEqual({
        general: { maxAttempts: 1, vimMode: true }
      })

      for (const [file, text] of Object.entries(files)) expect(readFileSync(file, "utf8"), file).toBe(text)
    },
    120_000
  )

  it("an endpoint that is not a URL is refused with where and what to write", () => {
    const home = mkdtempSync(join(tmpdir(), "fallback-endpoint-"))
    const config = join(home, "config.json")
    writeFileSync(config, JSON.stringify({ clis: { codex: { endpoint: { baseUrl: "localhost:8080" } } } }))
    const ran = spawnSync(bin, ["list"], {
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "", HOME: home, FALLBACK_CONFIG: config }
    })
    expect(ran.status).toBe(1)
    expect(ran.stderr).toBe(
      `fallback: ${config} is not a fallback config: at clis.codex.endpoint.baseUrl: an http:// or https:// URL\n`
    )
  })
})
