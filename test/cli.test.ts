import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as MockProvider from "@fallback/testkit/MockProvider"
import { spawn, spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))
const bin = join(root, "node_modules", ".bin", "fallback")

// The bin runs the bundle test/support/bin.ts builds once for every end-to-end file.

const fallback = (config: string, ...args: Array<string>) => {
  const ran = spawnSync(bin, args, {
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "", HOME: tmpdir(), FALLBACK_CONFIG: config }
  })
  return { code: ran.status, out: ran.stdout, err: ran.stderr }
}

/** Runs the bin without blocking this process, so a mock provider in it can answer. */
const running = (config: string, env: Record<string, string>, ...args: Array<string>) =>
  new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
    const child = spawn(bin, args, {
      env: { PATH: process.env.PATH ?? "", HOME: tmpdir(), FALLBACK_CONFIG: config, ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let [out, err] = ["", ""]
    child.stdout.on("data", (chunk) => (out += chunk))
    child.stderr.on("data", (chunk) => (err += chunk))
    child.on("close", (code) => resolve({ code, out, err }))
  })

describe("the installed fallback command", () => {
  it("writes steps to FALLBACK_CONFIG and walks the chain", () => {
    const config = join(mkdtempSync(join(tmpdir(), "fallback-bin-")), "config.json")
    expect(fallback(config, "point", "claude@work/claude-opus-5", "codex/gpt-5.6-sol")).toMatchObject({ code: 1 })
    expect(fallback(config, "accounts", "add", "claude", "work").code).toBe(0)
    expect(fallback(config, "point", "claude@work/claude-opus-5", "codex/gpt-5.6-sol").code).toBe(0)
    expect(fallback(config, "point", "codex/gpt-5.6-sol", "gemini/gemini-3-pro").code).toBe(0)
    expect(fallback(config, "chain", "claude@work/claude-opus-5")).toEqual({
      code: 0,
      out: "claude@work/claude-opus-5 → codex/gpt-5.6-sol → gemini/gemini-3-pro\n",
      err: ""
    })
    expect(JSON.parse(readFileSync(config, "utf8")).steps["codex/gpt-5.6-sol"]).toEqual({ to: "gemini/gemini-3-pro" })
  })

  it("says what is wrong in one line on stderr and exits non-zero", () => {
    const config = join(mkdtempSync(join(tmpdir(), "fallback-bin-")), "config.json")
    expect(fallback(config, "point", "claude@work/claude-opus-5", "codex/gpt-5.6-sol")).toEqual({
      code: 1,
      out: "",
      err:
        `fallback: ${config}: claude@work/claude-opus-5 names the account "work", which is not set up for claude (it has none); add it with: fallback accounts add claude work\n`
    })
  })

  it("tells every usage error in one line starting fallback:, with how the command is called", () => {
    const config = join(mkdtempSync(join(tmpdir(), "fallback-bin-")), "config.json")
    const retry =
      "usage: fallback retry PLACE --tries N [--policy P] [--timeout TIME] (fallback retry --help explains each)"
    const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
      [["chain"], "PLACE is missing; usage: fallback chain PLACE [--json] (fallback chain --help explains each)"],
      [["point", "claude/a"], "TO is missing; usage: fallback point FROM TO (fallback point --help explains each)"],
      [["chain", "claude/a", "codex/b"], "'codex/b' is one argument too many; usage: fallback chain PLACE [--json]"],
      [["retry", "claude/a", "--tries", "three"], `--tries takes a whole number, not 'three'; ${retry}`],
      [["retry", "claude/a", "--tries=3x"], `--tries takes a whole number, not '3x'; ${retry}`],
      [["retry", "claude/a", "--tries"], `--tries needs a value; ${retry}`],
      [
        ["retry", "claude/a", "--tries", "1", "--policy", "sometimes"],
        `--policy is one of none, constant, linear, exponential, exponential-jitter, fibonacci, not 'sometimes'; ${retry}`
      ],
      [
        ["run", "--preset", "nope", "claude/a", "hi"],
        "--preset is one of primary, escalating, breaker, api, not 'nope'"
      ],
      [["accounts", "add", "claude"], "NAME is missing; usage: fallback accounts add CLI NAME"],
      [["--config", config, "list"], "--config goes after the command: fallback COMMAND --config FILE"],
      [
        ["list", "--jsn"],
        "--jsn is not an option of fallback list (did you mean --json?); fallback list --help lists them"
      ]
    ]
    for (const [args, said] of cases) {
      const ran = fallback(config, ...args)
      expect({ args, ...ran }).toMatchObject({ args, code: 1, out: "" })
      expect(ran.err.split("\n")).toHaveLength(2)
      expect(ran.err).toContain(`fallback: ${said}`)
      expect(ran.err).toMatch(/^fallback: .*(--help|fallback [a-z]+ PLACE|COMMAND --config FILE)/)
    }
    expect(existsSync(config)).toBe(false)
  })

  it("prints help without colour when not on a terminal", () => {
    const help = fallback(join(tmpdir(), "unused.json"), "--help")
    expect(help.code).toBe(0)
    expect(help.out).toContain("fallback point claude@work/claude-opus-5 codex@key/gpt-5.6-sol")
    expect(help.out).not.toContain("\u001b[")
  })
})

describe("fallback run and fallback demo, over HTTP to a loopback provider", () => {
  let mock: MockProvider.Running
  beforeAll(async () => {
    mock = await MockProvider.start()
  })
  afterAll(() => mock.stop())

  const configWith = (steps: Record<string, unknown>) => {
    const config = join(mkdtempSync(join(tmpdir(), "fallback-run-")), "config.json")
    writeFileSync(
      config,
      JSON.stringify({
        steps,
        accounts: { anthropic: [{ name: "work", env: { ANTHROPIC_API_KEY: { fromEnv: "KEY_WORK" } } }] },
        providers: {
          anthropic: { kind: "anthropic-messages", baseUrl: mock.url, key: { fromEnv: "ANTHROPIC_API_KEY" } },
          local: { kind: "openai-compatible", baseUrl: `${mock.url}/v1` }
        }
      })
    )
    return config
  }

  it("answers on stdout, narrates the move on stderr, and exits 0", async () => {
    mock.reset()
    mock.script([
      { fault: "unauthorized", key: "key-work" },
      { fault: "answer", model: "qwen3:8b", text: "hello from qwen" }
    ])
    const config = configWith({ "anthropic@work/claude-opus-5": { to: "local/qwen3:8b" } })
    const ran = await running(config, { KEY_WORK: "key-work" }, "run", "anthropic@work/claude-opus-5", "Say hello")
    expect(ran).toEqual({
      code: 0,
      out: "hello from qwen\n",
      err:
        "anthropic@work refused the credentials (account work needs signing in again); another account or another place is what answers it; carrying on at local/qwen3:8b\n"
    })
    expect(ran.err).not.toContain("key-work")
  })

  it("exits with the status of the kind the turn finally failed with", async () => {
    mock.reset()
    mock.script([{ fault: "model-not-found" }])
    const config = configWith({ "local/old-model": { to: "local/older-model" } })
    const ran = await running(config, {}, "run", "local/old-model", "Say hello")
    expect(ran.code).toBe(13)
    expect(ran.out).toBe("")
    expect(ran.err).toContain("local has no model old-model")
    expect(ran.err.trim().split("\n").at(-1)).toBe(
      "fallback: local has no model older-model (retired, or never there)"
    )
  })

  it("demo narrates a rate limit, a refused key and a retired model, then prints the answer", async () => {
    const ran = await running(join(tmpdir(), "unused.json"), {}, "demo")
    expect(ran.code).toBe(0)
    const lines = ran.out.split("\n")
    const narrated = lines.filter((line) => line.includes("; trying again") || line.includes("; carrying on"))
    expect(narrated.map((line) => line.trim().replace(/ \(.*\);/, ";"))).toEqual([
      "anthropic@work is rate-limited and asked for a wait of 1s; a wait, another account or another place is what answers it; trying again in 1s (1 of 1)",
      "anthropic@work is rate-limited and asked for a wait of 1s; a wait, another account or another place is what answers it; carrying on as spare",
      "anthropic@spare refused the credentials; another account or another place is what answers it; carrying on at openai/gpt-4.5-preview",
      "openai has no model gpt-4.5-preview; another place is what answers it; carrying on at local/qwen3:8b"
    ])
    expect(ran.out).toContain("The answer, from local/qwen3:8b:\n  Hello! I am qwen3:8b on a local server")
    expect(ran.out).toContain("5 requests, 4 failed and answered")
  })
})
