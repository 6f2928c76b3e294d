import { beforeAll, describe, expect, it } from "@effect/vitest"
import { execFileSync, spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))
const bin = join(root, "node_modules", ".bin", "fallback")

beforeAll(() => {
  if (!existsSync(join(root, "packages", "cli", "dist", "fallback.mjs"))) {
    execFileSync(process.execPath, [join(root, "packages", "cli", "build.mjs")])
  }
})

const fallback = (config: string, ...args: Array<string>) => {
  const ran = spawnSync(bin, args, {
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "", HOME: tmpdir(), FALLBACK_CONFIG: config }
  })
  return { code: ran.status, out: ran.stdout, err: ran.stderr }
}

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
      err: `fallback: ${config}: claude@work/claude-opus-5 names the account "work", which is not set up for claude (it has none); add it with: fallback accounts add claude work\n`
    })
  })

  it("prints help without colour when not on a terminal", () => {
    const help = fallback(join(tmpdir(), "unused.json"), "--help")
    expect(help.code).toBe(0)
    expect(help.out).toContain("fallback point claude@work/claude-opus-5 codex@key/gpt-5.6-sol")
    expect(help.out).not.toContain("\u001b[")
  })
})
