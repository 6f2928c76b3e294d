// `fallback mock` as a user runs it: the installed bin as a real process, asked over HTTP on 127.0.0.1.
import { spawn } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

import { describe, expect, it } from "@effect/vitest"

import { bin, runBin } from "./support/bin.js"

interface Started {
  readonly url: string
  readonly port: number
  readonly refusedUrl: string
  readonly lifetime: number
}

/** Starts `fallback mock ARGS…`, resolving with its JSON line once it listens, and how it ends. */
const start = (...args: Array<string>) => {
  const child = spawn(bin, ["mock", "--json", ...args], {
    env: { PATH: process.env.PATH ?? "", HOME: tmpdir(), FALLBACK_CONFIG: join(tmpdir(), "no-config.json") },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let [out, err] = ["", ""]
  const ended = new Promise<{ code: number | null; out: string; err: string }>((resolve) =>
    child.on("close", (code) => resolve({ code, out, err }))
  )
  const started = new Promise<Started>((resolve, reject) => {
    child.stdout.on("data", (chunk) => {
      out += chunk
      if (out.includes("\n")) resolve(JSON.parse(out.split("\n")[0]!))
    })
    child.stderr.on("data", (chunk) => (err += chunk))
    void ended.then((how) => reject(new Error(`the mock ended before it listened: ${JSON.stringify(how)}`)))
  })
  return { child, started, ended }
}

const chat = (url: string, model: string, key: string) =>
  fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model, messages: [{ role: "user", content: "hi" }] })
  })

describe("fallback mock", () => {
  it(
    "serves on 127.0.0.1, plays the fault in the model or the key, is scripted over HTTP, stops on SIGTERM",
    async () => {
      const { child, ended, started } = start("--lifetime", "5m")
      const mock = await started
      expect(mock.url).toBe(`http://127.0.0.1:${mock.port}`)
      expect(mock.lifetime).toBe(300)
      expect((await chat(mock.url, "gpt-5-fault-rate-limit", "any")).status).toBe(429)
      expect((await chat(mock.url, "gpt-5", "key-fault-unauthorized")).status).toBe(401)
      const answered = await chat(mock.url, "gpt-5", "any")
      expect(answered.status).toBe(200)
      expect(JSON.stringify(await answered.json())).toContain("mock answer from gpt-5")
      const scripted = await fetch(`${mock.url}/_mock/script`, {
        method: "POST",
        body: JSON.stringify({ rules: [{ fault: "overloaded", model: "gpt-5", times: 1 }] })
      })
      expect(scripted.status).toBe(200)
      expect((await chat(mock.url, "gpt-5", "any")).status).toBe(503)
      expect((await chat(mock.url, "gpt-5", "any")).status).toBe(200)
      const wrong = await fetch(`${mock.url}/_mock/script`, {
        method: "POST",
        body: "{\"rules\":[{\"fault\":\"nope\"}]}"
      })
      expect(wrong.status).toBe(400)
      const counts = await (await fetch(`${mock.url}/_mock/requests`)).json()
      expect(counts).toMatchObject({
        total: 5,
        byFault: { "rate-limit": 1, unauthorized: 1, answer: 2, overloaded: 1 },
        byKey: { any: 4, "key-fault-unauthorized": 1 }
      })
      expect((await fetch(`${mock.url}/_mock/reset`, { method: "POST" })).status).toBe(200)
      expect(await (await fetch(`${mock.url}/_mock/requests`)).json()).toMatchObject({ total: 0 })
      child.kill("SIGTERM")
      expect(await ended).toMatchObject({ code: 143, err: "" })
      await expect(fetch(`${mock.url}/_mock/requests`)).rejects.toThrow()
    },
    60_000
  )

  it("stops by itself at the end of its lifetime, and prints its URL and how to point each CLI at it", async () => {
    const ran = await runBin(join(tmpdir(), "no-config.json"), {}, ["mock", "--lifetime", "1s"])
    expect(ran.code).toBe(0)
    const url = ran.out.match(/at (http:\/\/127\.0\.0\.1:\d+) for 1s/)?.[1]
    expect(url).toBeDefined()
    expect(ran.out).toContain(`ANTHROPIC_BASE_URL=${url}\n`)
    expect(ran.out).toContain(`GOOGLE_GEMINI_BASE_URL=${url}\n`)
    expect(ran.out.trim().split("\n").at(-1)).toBe("fallback mock: stopped at the end of its lifetime (1s)")
  }, 60_000)

  it("refuses a port that is taken, a port out of range and a lifetime it cannot keep, in one line", async () => {
    const { child, ended, started } = start()
    const taken = (await started).port
    const config = join(mkdtempSync(join(tmpdir(), "fallback-mock-")), "config.json")
    const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
      [
        ["--port", String(taken)],
        `fallback: --port ${taken}: 127.0.0.1:${taken} is taken; give another port, or leave --port out for any free one\n`
      ],
      [["--port", "70000"], "fallback: --port 70000: a port is 0 (any free one) to 65535\n"],
      [["--lifetime", "0"], "fallback: --lifetime 0: more than 0 and at most 24h (10m, 1h…)\n"],
      [["--lifetime", "2d"], expect.stringMatching(/^fallback: "2d" is not a time/)]
    ]
    for (const [args, err] of cases) {
      expect(await runBin(config, {}, ["mock", ...args])).toMatchObject({ code: 1, out: "", err })
    }
    child.kill("SIGINT")
    expect((await ended).code).toBe(130)
  }, 60_000)
})
