/**
 * Health shared through the file by real `fallback run` processes, all at once, against the mock
 * provider: every failure a run met is in the file, and after each park exactly one request gets
 * through. Every check is a count; the park is waited out, never timed.
 */
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

import { MockProvider } from "@fallback/testkit"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

const bin = join(import.meta.dirname, "..", "bin", "fallback.js")

let folder = ""
let mock: MockProvider.Running

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), "fallback-shared-file-"))
  mock = await MockProvider.start()
}, 60_000)

afterAll(async () => {
  await mock?.stop()
  rmSync(folder, { recursive: true, force: true })
})

/** A config whose one place's every request the mock answers 500, with these breaker numbers. */
const setUp = (name: string, breaker: { readonly failures: number; readonly park: number }) => {
  const model = `${name}-fault-server-error`
  const home = mkdtempSync(join(folder, `${name}-`))
  const config = join(home, "config.json")
  writeFileSync(
    config,
    JSON.stringify({
      providers: { local: { kind: "openai-compatible", baseUrl: `${mock.url}/v1`, models: [{ name: model }] } },
      run: { attempts: 1, breaker }
    })
  )
  const fallback = (...args: Array<string>) =>
    new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
      const child = spawn(process.execPath, [bin, ...args], {
        env: { PATH: process.env.PATH ?? "", HOME: home, FALLBACK_CONFIG: config },
        stdio: ["ignore", "pipe", "pipe"]
      })
      let [out, err] = ["", ""]
      child.stdout.on("data", (chunk) => (out += chunk))
      child.stderr.on("data", (chunk) => (err += chunk))
      child.on("close", (code) => resolve({ code, out, err }))
    })
  const runs = (n: number) => Promise.all(Array.from({ length: n }, () => fallback("run", `local/${model}`, "hi")))
  const failures = async () => {
    const shown = await fallback("status", "--json")
    return (JSON.parse(shown.out) as Array<{ failures: number }>)[0]?.failures ?? 0
  }
  const requests = () => mock.requests().log.filter((request) => request.model === model).length
  return { runs, failures, requests }
}

describe("health shared through the file by concurrent fallback runs", () => {
  it(
    "50 runs at once, each failing: 50 requests, 50 failures recorded; 50 runs after each of 2 parks: each request that got through was its period's one trial",
    async () => {
      const n = 50
      // A trial's lease lasts the park: a park long beside what 50 processes at once take on 2 busy
      // cores, so a trial that runs late is still its period's one trial when its failure is written.
      const park = 20
      const { failures, requests, runs } = setUp("shared", { failures: n, park })
      const first = await runs(n)
      // Nothing said that a change was not written, and nothing lost: the n-th failure opens the breaker.
      expect(first.map((ran) => ran.err).filter((err) => err.includes("was not changed"))).toEqual([])
      expect(requests()).toBe(n)
      expect(await failures()).toBe(n)
      const perRound: Array<number> = []
      for (let round = 0; round < 2; round++) {
        // the park is waited out: every run of this round comes after it has ended
        await new Promise((resolve) => setTimeout(resolve, park * 1_000 + 500))
        const before = requests()
        const ran = await runs(n)
        expect(ran.map((r) => r.err).filter((err) => err.includes("was not changed"))).toEqual([])
        perRound.push(requests() - before)
      }
      const trials = perRound.reduce((sum, k) => sum + k, 0)
      console.log(
        `the file, ${n} concurrent fallback runs: ${n} requests, ${n} failures recorded; after each park ${
          perRound.join(", ")
        } requests got through`
      )
      for (const k of perRound) expect(k).toBeGreaterThanOrEqual(1)
      // A trial's failure counts only when it is the one trial leased in its open period.
      expect(await failures()).toBe(n + trials)
    },
    300_000
  )
})
