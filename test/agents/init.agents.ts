/**
 * A new user's first failover with the real CLIs: `fallback init` finds the four CLIs on PATH and
 * points each at the loopback mock, then each answers a turn there, and a turn whose first place
 * refuses its key fails over to another CLI. No file is written by hand: only what `init` writes.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"

import * as MockProvider from "@fallback/testkit/MockProvider"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

import { bin, cache } from "./clis.js"
import { key, keyVariable } from "./places.js"

const root = path.resolve(import.meta.dirname, "../..")
const fallbackBin = path.join(root, "node_modules", ".bin", "fallback")
const home = fs.mkdtempSync(path.join(path.resolve(root, ".cache"), "agents-init-"))
const onPath = path.join(home, "bin")
let mock: MockProvider.Running

beforeAll(async () => {
  mock = await MockProvider.start()
  fs.mkdirSync(onPath)
  for (const cli of ["claude", "codex", "gemini", "opencode"] as const) fs.symlinkSync(bin(cli), path.join(onPath, cli))
})
afterAll(async () => {
  await mock?.stop()
  if (process.env.FALLBACK_AGENTS_KEEP === undefined) fs.rmSync(home, { recursive: true, force: true })
})

const fallback = (...args: Array<string>) =>
  new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
    const child = spawn(fallbackBin, args, {
      cwd: home,
      env: {
        PATH: `${onPath}:${path.dirname(process.execPath)}:/usr/bin:/bin`,
        HOME: home,
        [keyVariable]: key,
        XDG_CACHE_HOME: path.join(cache, "opencode-cache")
      },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let [out, err] = ["", ""]
    child.stdout.on("data", (chunk) => (out += chunk))
    child.stderr.on("data", (chunk) => (err += chunk))
    child.on("close", (code) => resolve({ code, out, err }))
  })

describe("from fallback init to a failover across real CLIs", () => {
  it(
    "init points the four CLIs at the mock, each answers there, and a refused key fails over to another CLI",
    async () => {
      const url = mock.url
      const init = await fallback(
        "init",
        "--yes",
        "--endpoint",
        `claude=${url}`,
        "--endpoint",
        `codex=${url}/v1`,
        "--endpoint",
        `gemini=${url}`,
        "--endpoint",
        `opencode=${url}/v1`,
        "--key",
        keyVariable
      )
      process.stdout.write(`$ fallback init --yes --endpoint …\n${init.out}${init.err}\n`)
      expect(init.code).toBe(0)
      const places = [
        "claude/claude-sonnet-4-5",
        "codex/gpt-5.5",
        "gemini/gemini-2.5-flash",
        "opencode/fallback/mock-model"
      ]
      for (const place of places) {
        // opencode fetches its provider package on its first turn in a fresh HOME
        const ran = await fallback("run", place, "--attempts", "1", "--first-byte", "240s", "Say hello")
        process.stdout.write(`$ fallback run ${place} "Say hello"\n${ran.out}${ran.err}\n`)
        expect(ran.code, `${place}: ${ran.err}`).toBe(0)
        expect(ran.out.trim().length).toBeGreaterThan(0)
        expect(ran.out + ran.err).not.toContain(key)
      }
      // every CLI was found; no account of a CLI's own folder was made up by asking its version
      expect(init.out).not.toContain("account login")
      const from = "claude/claude-sonnet-4-5-fault-unauthorized"
      expect((await fallback("point", from, "codex/gpt-5.5")).code).toBe(0)
      const moved = await fallback("run", from, "Say hello")
      process.stdout.write(
        `$ fallback point ${from} codex/gpt-5.5\n$ fallback run ${from} "Say hello"\n${moved.out}${moved.err}\n`
      )
      expect(moved.code).toBe(0)
      expect(moved.err).toContain("carrying on at codex/gpt-5.5")
      // claude's own retrying was off: one request for the refused key, then the move
      expect(mock.requests().byModel["claude-sonnet-4-5-fault-unauthorized"]).toBe(1)
      // each CLI's own retrying is off: a server error is one request, then fallback's answer to it
      for (
        const [cli, model] of [["codex", "gpt-5.5"], ["gemini", "gemini-2.5-flash"], ["claude", "claude-sonnet-4-5"]]
      ) {
        const failing = `${model}-fault-server-error`
        const failed = await fallback("run", `${cli}/${failing}`, "--attempts", "1", "Say hello")
        process.stdout.write(
          `$ fallback run ${cli}/${failing} --attempts 1 "Say hello"\n${failed.out}${failed.err}(exit ${failed.code}; the mock saw ${
            mock.requests().byModel[failing]
          } request)\n\n`
        )
        expect(failed.code, failed.err).not.toBe(0)
        expect(mock.requests().byModel[failing], cli).toBe(1)
      }
      process.stdout.write(
        `$ cat ~/.config/fallback/config.json\n${
          fs.readFileSync(path.join(home, ".config", "fallback", "config.json"), "utf8").replaceAll(
            url,
            "http://127.0.0.1:PORT"
          )
        }\n`
      )
      const written = fs.readdirSync(path.join(home, ".config", "fallback"))
      expect(written.sort()).toEqual(expect.arrayContaining(["config.json", "config.schema.json"]))
    },
    600_000
  )
})
