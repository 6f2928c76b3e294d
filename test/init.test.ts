// `fallback init` against a fake HOME, with stand-in CLIs on PATH that answer --version.
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

import { describe, expect, it } from "@effect/vitest"

const root = fileURLToPath(new URL("..", import.meta.url))
const bin = join(root, "node_modules", ".bin", "fallback")
const secret = "sk-ant-api03-init-must-never-print-this-value"

const fakeHome = () => {
  const home = mkdtempSync(join(tmpdir(), "fallback-init-"))
  const path = join(home, "bin")
  mkdirSync(path)
  symlinkSync(join(root, "test", "fixtures", "standins", "claude"), join(path, "claude"))
  symlinkSync(join(root, "test", "fixtures", "recorders", "record"), join(path, "codex"))
  mkdirSync(join(home, ".claude"))
  mkdirSync(join(home, ".claude-work"))
  mkdirSync(join(home, ".codex"))
  // what signing in leaves: a folder without it is not a sign-in
  writeFileSync(join(home, ".claude", ".credentials.json"), "{}")
  writeFileSync(join(home, ".claude-work", ".credentials.json"), "{}")
  writeFileSync(join(home, ".codex", "auth.json"), "{}")
  const config = join(home, ".config", "fallback", "config.json")
  const fallback = (...args: Array<string>) =>
    spawnSync(bin, args, {
      encoding: "utf8",
      env: { PATH: `${path}:${dirname(process.execPath)}`, HOME: home, ANTHROPIC_API_KEY: secret }
    })
  return { home, config, fallback }
}

describe("fallback init", () => {
  it("finds the CLIs with their versions and the accounts it can see, writes them with $schema, and ends with the doctor", () => {
    const { config, fallback, home } = fakeHome()
    const ran = fallback("init", "--yes")
    expect(ran.stderr).toBe("")
    expect(ran.status).toBe(0)
    expect(ran.stdout).toContain([
      "Found:",
      "  claude 2.1.332 (Claude Code)",
      "    account login: its own sign-in in ~/.claude",
      "    account work: the config dir ~/.claude-work",
      "    account key: the key in $ANTHROPIC_API_KEY (set; its value is not read)",
      "  codex codex 0.0.0-recorder",
      "    account login: its own sign-in in ~/.codex"
    ].join("\n"))
    expect(ran.stdout).toContain(`Wrote ${config}. What the doctor says of it:\n✓ config`)
    expect(ran.stdout).toContain("✓ claude@key       ANTHROPIC_API_KEY from ANTHROPIC_API_KEY (set)")
    expect(ran.stdout).toContain("fallback point claude@login/MODEL codex@login/MODEL")
    const written = JSON.parse(readFileSync(config, "utf8"))
    expect(written.$schema).toBe("./config.schema.json")
    expect(existsSync(join(dirname(config), "config.schema.json"))).toBe(true)
    expect(written.accounts).toEqual({
      claude: [
        { name: "login" },
        { name: "work", configDir: join(home, ".claude-work") },
        { name: "key", env: { ANTHROPIC_API_KEY: { fromEnv: "ANTHROPIC_API_KEY" } } }
      ],
      codex: [{ name: "login" }]
    })
    expect(readFileSync(config, "utf8") + ran.stdout).not.toContain(secret)
    // a second run adds nothing twice; an endpoint is written for the CLI it names
    const again = fallback("init", "-y", "--endpoint", "codex=http://127.0.0.1:9/v1", "--key", "LOCAL_KEY")
    const rewritten = JSON.parse(readFileSync(config, "utf8"))
    expect(rewritten.accounts).toEqual(written.accounts)
    expect(rewritten.clis.codex).toEqual({
      endpoint: { baseUrl: "http://127.0.0.1:9/v1", key: { fromEnv: "LOCAL_KEY" } }
    })
    expect(again.stdout).toContain("    sends its requests to http://127.0.0.1:9/v1")
    // the doctor checks the endpoint's key variable, never showing a value
    expect(again.stdout).toContain("✗ codex            its endpoint's key is taken from LOCAL_KEY, which is not set")
    expect(again.status).toBe(1)
    expect(fallback("init", "-y", "--endpoint", "gemini=http://127.0.0.1:9").stderr).toBe(
      "fallback: --endpoint gemini=…: gemini is not installed (not on PATH); install it with: npm install -g @google/gemini-cli\n"
    )
  })

  it("asks before writing, and says so where it cannot ask; refuses what it cannot use", () => {
    const { config, fallback } = fakeHome()
    expect(fallback("init").stderr).toBe(`fallback: no terminal to ask on; write ${config} with: fallback init --yes\n`)
    expect(existsSync(config)).toBe(false)
    expect(fallback("init", "--yes", "--endpoint", "codex:http://x").stderr).toBe(
      "fallback: --endpoint codex:http://x: write CLI=URL, the CLI one of claude, codex, gemini, opencode, antigravity\n"
    )
    expect(fallback("init", "--yes", "--cli", "gemini").stderr).toBe(
      "fallback: no agent CLI is installed of gemini; install one: npm install -g @anthropic-ai/claude-code, or npm install -g @openai/codex, or npm install -g @google/gemini-cli, or npm install -g opencode-ai\n"
    )
  })

  it("calls a folder a sign-in only when it holds what signing in writes, and the doctor says so", () => {
    const { config, fallback, home } = fakeHome()
    rmSync(join(home, ".claude", ".credentials.json"))
    rmSync(join(home, ".claude-work", ".credentials.json"))
    rmSync(join(home, ".codex", "auth.json"))
    const ran = fallback("init", "--yes")
    expect(ran.stdout).toContain([
      "  claude 2.1.332 (Claude Code)",
      `    account work: the config dir ~/.claude-work (not signed in; sign in with: CLAUDE_CONFIG_DIR=~/.claude-work claude  # then /login)`,
      "    account key: the key in $ANTHROPIC_API_KEY (set; its value is not read)",
      "  codex codex 0.0.0-recorder",
      "    no account seen: not signed in, and no key variable set (sign in with: codex login)"
    ].join("\n"))
    expect(ran.stdout).not.toContain("account login")
    expect(ran.stdout).toContain(
      `✗ claude@work      config dir ${join(home, ".claude-work")} holds no sign-in (no .credentials.json in it)`
    )
    expect(ran.status).toBe(1)
    expect(JSON.parse(readFileSync(config, "utf8")).accounts.claude.map((a: { name: string }) => a.name)).toEqual([
      "work",
      "key"
    ])
  })
})
