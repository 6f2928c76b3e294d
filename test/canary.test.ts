/**
 * The canary (issue 12): secrets in every variable the config references, in what a hostile
 * provider and a hostile CLI send back (bodies, headers, stderr), and in the prompt; every output of
 * every command and every file fallback writes is scanned for each of them.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type Ran, runBin } from "./support/bin.js"

const nonce = Math.random().toString(36).slice(2, 10)
const canaries = {
  providerKey: `canary-provider-${nonce}`,
  accountKey: `canary-account-${nonce}`,
  cliKey: `canary-cli-${nonce}`,
  promptSecret: `Zq${nonce}0123456789abcdefghijklmnopqrstu`,
  shaped: `gsk_${nonce}ABCDEFGHIJKLMNOP`,
  urlPassword: `pw-${nonce}-hidden`
}

/** Answers every request 401, echoing all it was sent: the key, the prompt, the headers, and more secrets. */
const hostile = () =>
  createServer((request, response) => {
    let body = ""
    request.on("data", (chunk) => (body += chunk))
    request.on("end", () => {
      const key = String(request.headers.authorization).replace(/^Bearer /, "")
      // issue 23: the key also comes back in base64, base64url and cut by a line break
      const encoded = `${Buffer.from(`user:${key}`).toString("base64")} ${Buffer.from(`u${key}`).toString("base64url")}`
      const echoed = `as sent: ${encoded} wrapped: ${key.slice(0, 9)}\r\n  ${key.slice(9)} ` +
        `invalid key: ${request.headers.authorization} x-api-key ${request.headers["x-api-key"] ?? ""} ` +
        `also ${canaries.shaped} at https://user:${canaries.urlPassword}@proxy.example for the request ${body}`
      response.writeHead(401, { "content-type": "application/json", "x-echo": String(request.headers.authorization) })
      response.end(JSON.stringify({ error: { type: "authentication_error", message: echoed } }))
    })
  })

/** A claude that says its key back on stderr and in its result, and fails. */
const leakyClaude = (dir: string) => {
  const file = join(dir, "claude")
  writeFileSync(
    file,
    `#!${process.execPath}
const key = process.env.ANTHROPIC_API_KEY
process.stdout.write(JSON.stringify({ type: "system", subtype: "init", session_id: "s-1" }) + "\\n")
process.stderr.write("Invalid API key: " + key + "\\n")
process.stdout.write(JSON.stringify({ type: "result", subtype: "error", is_error: true, result: "401 bad key " + key, session_id: "s-1" }) + "\\n")
process.exitCode = 1
`,
    { mode: 0o755 }
  )
  return file
}

describe("canary secrets", () => {
  let server: Server
  let url: string
  beforeAll(async () => {
    server = hostile()
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  it("appear in no output of any command and no file fallback writes", async () => {
    const dir = mkdtempSync(join(tmpdir(), "fallback-canary-"))
    const config = join(dir, "config.json")
    writeFileSync(
      config,
      JSON.stringify({
        steps: {
          "hostile/m": { to: "claude@c/claude-sonnet-4-5", retrying: { tries: 1, policy: "none" } }
        },
        accounts: {
          hostile: [{ name: "two", env: { HOSTILE_KEY: { fromEnv: "CANARY_TWO" } } }],
          claude: [{ name: "c", env: { ANTHROPIC_API_KEY: { fromEnv: "CANARY_CLAUDE" } } }]
        },
        providers: { hostile: { kind: "openai-compatible", baseUrl: `${url}/v1`, key: { fromEnv: "HOSTILE_KEY" } } },
        clis: { claude: { bin: leakyClaude(dir) } }
      })
    )
    const env = { HOSTILE_KEY: canaries.providerKey, CANARY_TWO: canaries.accountKey, CANARY_CLAUDE: canaries.cliKey }
    const prompt = `please log in with ${canaries.promptSecret} and say hi`
    const runs: Array<readonly [string, Ran]> = []
    const fallback = async (...args: Array<string>) => {
      const ran = await runBin(config, env, args, { input: prompt })
      runs.push([args.join(" "), ran])
      return ran
    }
    const turn = await fallback("run", "hostile/m", prompt)
    expect(turn.code).not.toBe(0)
    expect(turn.err).toContain("***")
    if (process.env.CANARY_SHOW) console.log(turn.err)
    await fallback("run", "hostile/m", "-")
    for (const args of [["status"], ["status", "--json"], ["list"], ["list", "--json"], ["chain", "hostile/m"]]) {
      expect((await fallback(...args)).code).toBe(0)
    }
    await fallback("accounts", "--json")
    await fallback("doctor")
    await fallback("doctor", "--json")

    const files = readdirSync(dir).filter((name) => name !== "claude").map((name) =>
      [name, readFileSync(join(dir, name), "utf8")] as const
    )
    expect(files.map(([name]) => name)).toContain("health.json")
    const leaks = Object.entries(canaries).flatMap(([which, secret]) => [
      ...runs.flatMap(([args, ran]) =>
        `${ran.out}\n${ran.err}`.includes(secret) ? [`${which} in the output of fallback ${args}`] : []
      ),
      ...files.flatMap(([name, text]) => text.includes(secret) ? [`${which} in ${name}`] : [])
    ])
    expect(leaks).toEqual([])
    // the provider's key echoed encoded or cut in two: no part that would give it back
    const key = canaries.providerKey
    const pieces = {
      base64: Buffer.from(`user:${key}`).toString("base64").slice(8, -4),
      base64url: Buffer.from(`u${key}`).toString("base64url").slice(4, -4),
      afterBreak: key.slice(9)
    }
    const echoes = Object.entries(pieces).flatMap(([which, piece]) => [
      ...runs.flatMap(([args, ran]) =>
        `${ran.out}\n${ran.err}`.includes(piece) ? [`${which} in fallback ${args}`] : []
      ),
      ...files.flatMap(([name, text]) => text.includes(piece) ? [`${which} in ${name}`] : [])
    ])
    expect(echoes).toEqual([])
    expect(files.find(([name]) => name === "health.json")![1]).not.toContain("please log in")
  }, 120_000)
})
