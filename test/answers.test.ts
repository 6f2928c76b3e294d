// The README's run.answers example, as a user would paste it: read by the config's own decoder,
// and run by the installed bin against a rate-limited stand-in claude.
import { spawn } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

import { describe, expect, it } from "@effect/vitest"
import * as ConfigFile from "@fallback/core/ConfigFile"
import { Schema } from "effect"

import { bin } from "./support/bin.js"

const root = fileURLToPath(new URL("..", import.meta.url))
const standins = join(root, "test", "fixtures", "standins")

/** The first JSON block under the README's heading on run.answers. */
const example = (): { readonly run: unknown } => {
  const readme = readFileSync(join(root, "README.md"), "utf8")
  const section = readme.slice(readme.indexOf("### What a kind of failure is answered with: `run.answers`"))
  const block = section.match(/```json\n([\s\S]*?)```/)
  if (block === null) throw new Error("no JSON block under the run.answers heading")
  return JSON.parse(block[1]!)
}

const run = (config: string, home: string) =>
  new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
    const child = spawn(bin, ["run", "claude@work/claude-opus-5", "Hello"], {
      env: { PATH: `${standins}:${process.env.PATH ?? ""}`, HOME: home, FALLBACK_CONFIG: config },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let [out, err] = ["", ""]
    child.stdout.on("data", (chunk) => (out += chunk))
    child.stderr.on("data", (chunk) => (err += chunk))
    child.on("close", (code) => resolve({ code, out, err }))
  })

describe("the README's run.answers example", () => {
  it("is a config the decoder reads, and makes a rate-limited turn move on at once", async () => {
    const home = mkdtempSync(join(tmpdir(), "fallback-answers-"))
    const dirs = { work: join(home, "work"), home: join(home, "home") }
    for (const dir of Object.values(dirs)) mkdirSync(dir)
    writeFileSync(join(dirs.work, "behaviour"), "busy")
    writeFileSync(join(dirs.home, "behaviour"), "answer")
    const document = {
      ...example(),
      accounts: { claude: [{ name: "work", configDir: dirs.work }, { name: "home", configDir: dirs.home }] }
    }
    const decoded = Schema.decodeUnknownSync(ConfigFile.Document)(document)
    expect(decoded.run?.answers?.RateLimited).toEqual({ waits: [], step: false })
    const config = join(home, "config.json")
    writeFileSync(config, JSON.stringify(document))
    const ran = await run(config, home)
    expect(ran).toMatchObject({ code: 0, out: expect.stringMatching(/: Hello\n$/) })
    // the primary preset would have waited 30 s and tried claude@work again first
    expect(ran.err).not.toContain("trying again")
    expect(ran.err).toMatch(/^claude@work is rate-limited.*; carrying on as home\n$/)
    const tries = (dir: string) =>
      existsSync(join(dir, "argv.jsonl")) ? readFileSync(join(dir, "argv.jsonl"), "utf8").trim().split("\n").length : 0
    expect([tries(dirs.work), tries(dirs.home)]).toEqual([1, 1])
  }, 90_000)
})
