/**
 * Health shared by real processes: on one machine through the file, across "hosts" through a real
 * Redis (its own server, on a free loopback port). Every check is a count: requests the mock
 * provider saw, admissions each process was given, breakers the store opened.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

import { MockProvider, RedisServer } from "@fallback/testkit"
import { build } from "esbuild"
import { createClient } from "redis"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

let folder = ""
let worker = ""
let server: RedisServer.RedisServer
let client: ReturnType<typeof createClient> | undefined
let mock: MockProvider.Running

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), "fallback-shared-health-"))
  worker = join(folder, "worker.mjs")
  const [started] = await Promise.all([
    RedisServer.start(),
    build({
      entryPoints: [fileURLToPath(new URL("fixtures/worker.ts", import.meta.url))],
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node22",
      conditions: ["@fallback/source"],
      outfile: worker,
      logLevel: "warning",
      banner: {
        js:
          "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);"
      }
    })
  ])
  server = started
  client = createClient({ url: server.url, RESP: 2 })
  client.on("error", () => {})
  await client.connect()
  mock = await MockProvider.start()
}, 120_000)

afterAll(async () => {
  client?.destroy()
  await mock?.stop()
  await server?.close()
  rmSync(folder, { recursive: true, force: true })
})

/** A command on a connection of the test's own, as redis-cli would send it. */
const raw = <A>(...command: Array<string>) => client!.sendCommand(command) as Promise<A>

interface Line {
  readonly [key: string]: unknown
}

/** A worker process: its lines as they come, what it is asked, and how it ended. */
interface Worker {
  readonly child: ChildProcess
  readonly lines: Array<Line>
  readonly next: () => Promise<Line>
  readonly ask: (command: object) => Promise<Line>
  readonly ended: Promise<{ readonly code: number | null; readonly signal: string | null; readonly err: string }>
}

let places = 0

const start = (config: object): Promise<Worker> => {
  const child = spawn(process.execPath, [worker, JSON.stringify(config)], { stdio: ["pipe", "pipe", "pipe"] })
  const lines: Array<Line> = []
  const waiting: Array<(line: Line) => void> = []
  let read = 0
  let buffer = ""
  let err = ""
  const deliver = () => {
    while (waiting.length > 0 && read < lines.length) waiting.shift()!(lines[read++]!)
  }
  child.stdout!.on("data", (chunk) => {
    buffer += chunk
    const parts = buffer.split("\n")
    buffer = parts.pop()!
    for (const part of parts) if (part !== "") lines.push(JSON.parse(part) as Line)
    deliver()
  })
  child.stderr!.on("data", (chunk) => (err += chunk))
  const ended = new Promise<{ code: number | null; signal: string | null; err: string }>((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal, err }))
  )
  const next = () =>
    new Promise<Line>((resolve, reject) => {
      waiting.push(resolve)
      deliver()
      void ended.then((end) => reject(new Error(`the worker ended: ${JSON.stringify(end)}`)))
    })
  const ask = (command: object) => {
    child.stdin!.write(`${JSON.stringify(command)}\n`)
    return next()
  }
  return next().then(() => ({ child, lines, next, ask, ended }))
}

/** Reads lines until one has `key`. */
const until = async (worker: Worker, key: string) => {
  for (;;) {
    const line = await worker.next()
    if (key in line) return line
  }
}

const stopAll = async (workers: ReadonlyArray<Worker>) => {
  for (const w of workers) w.child.stdin!.end()
  return Promise.all(workers.map((w) => w.ended))
}

/** A place of its own for each test, whose every request the mock answers 500 (or answers, when `answering`). */
const placeFor = (answering = false) => ({
  model: `m${places++}${answering ? "" : "-fault-server-error"}`,
  prefix: `p${places}:`
})

const requestsAt = (model: string) => mock.requests().log.filter((request) => request.model === model).length

const fileOf = (prefix: string) => join(folder, `${prefix.slice(0, -1)}.json`)

const stores = () =>
  [
    {
      name: "Redis",
      config: (prefix: string) => ({ store: "redis", url: server.url, prefix }),
      recorded: async (prefix: string, model: string) =>
        Number(await raw<string | null>("HGET", `${prefix}local/${model}`, "failures") ?? 0),
      // Slow is not away: Redis stopped (SIGSTOP) and continued mid-run loses nothing
      stall: async () => {
        server.pause()
        await new Promise((resolve) => setTimeout(resolve, 1_500))
        server.resume()
      }
    },
    {
      name: "the file",
      config: (prefix: string) => ({ store: "file", file: fileOf(prefix) }),
      recorded: async (prefix: string) =>
        (JSON.parse(readFileSync(fileOf(prefix), "utf8")) as { places: Array<{ failures: number }> }).places[0]!
          .failures,
      stall: async () => {}
    }
  ] as const

/** Starts `n` workers at once, as many as a busy CI machine has processes sharing one place. */
const many = (n: number, options: object) => Promise.all(Array.from({ length: n }, () => start(options)))

/** Sends `command` to every worker, calls `midway` once `lines` progress lines have come, and reads each tally. */
const each = async (workers: ReadonlyArray<Worker>, command: object, midway: () => Promise<void>, lines: number) => {
  let seen = 0
  let called: Promise<void> | undefined
  const tallies = await Promise.all(workers.map(async (w) => {
    w.child.stdin!.write(`${JSON.stringify(command)}\n`)
    for (;;) {
      const line = await w.next()
      if ("done" in line) return line as { trial: number; skip: number; go: number; heard: Array<string> }
      if (++seen === lines) called = midway()
    }
  }))
  await called
  return tallies
}

describe.each(stores())("health shared through $name by real processes", ({ config, name, recorded, stall }) => {
  it(
    "50 processes × 4 failures each: exactly 200 counted (the 200th opens the breaker); then 2 trials each, every one the one trial of its open period",
    async () => {
      const { model, prefix } = placeFor()
      const workers = await many(50, {
        ...config(prefix),
        mock: mock.url,
        model,
        failures: 200,
        park: 30,
        trial: 600_000
      })
      const failing = await each(workers, { op: "fails", n: 4 }, stall, 60)
      // Nothing went to a process's own health: every change was written to the shared store.
      expect(failing.flatMap((tally) => tally.heard)).toEqual([])
      const counted = await recorded(prefix, model)
      expect(counted).toBe(200)

      const asking = await each(workers, { op: "trials", n: 2, pause: 50 }, stall, 40)
      const ends = await stopAll(workers)
      for (const end of ends) expect(end).toMatchObject({ code: 0, signal: null })
      expect(asking.flatMap((tally) => tally.heard)).toEqual([])
      const trials = asking.reduce((total, tally) => total + tally.trial, 0)
      expect(trials).toBe(100)
      // A trial's failure counts (and parks the place again) only when it is the one trial leased
      // in its open period: a second trial of one period would fail uncounted.
      const after = await recorded(prefix, model)
      console.log(
        `${name}: 50 processes × 4 failures: ${counted} of 200 counted; then ${trials} trials handed out, ${
          after - counted
        } of them the one trial of their open period`
      )
      expect(after).toBe(200 + trials)
      if (name === "Redis") {
        const [opens, leased, reparks] = await raw<Array<string>>(
          "HMGET",
          `${prefix}local/${model}`,
          "opens",
          "trials",
          "reparks"
        )
        expect([Number(opens), Number(leased), Number(reparks)]).toEqual([1, trials, trials])
      }
    },
    600_000
  )

  it(
    "8 processes × 50 failing turns at one place: the breaker opens once, one trial per park, no request at a parked place",
    async () => {
      const { model, prefix } = placeFor()
      const workers = await Promise.all(
        Array.from(
          { length: 8 },
          () => start({ ...config(prefix), mock: mock.url, model, failures: 5, park: 250, trial: 5_000 })
        )
      )
      const tallies = await Promise.all(workers.map(async (w) => {
        w.child.stdin!.write(`${JSON.stringify({ op: "turns", n: 50, pause: 15 })}\n`)
        return until(w, "done") as Promise<
          {
            go: number
            trial: number
            skip: number
            answered: number
            failed: number
            heard: Array<string>
            trialsAt: Array<number>
          }
        >
      }))
      const ends = await stopAll(workers)
      for (const end of ends) expect(end).toMatchObject({ code: 0, signal: null })
      const sum = (key: "go" | "trial" | "skip" | "failed") => tallies.reduce((total, t) => total + t[key], 0)
      expect(tallies.flatMap((tally) => tally.heard)).toEqual([])
      expect(sum("failed")).toBe(400)
      expect(sum("go") + sum("trial") + sum("skip")).toBe(400)
      // Every request the mock saw was admitted: a Go before the breaker opened, or a trial.
      expect(requestsAt(model)).toBe(sum("go") + sum("trial"))
      // Opened once: 5 failures, and at most one request already on its way from each other process.
      expect(sum("go")).toBeGreaterThanOrEqual(5)
      expect(sum("go")).toBeLessThanOrEqual(5 + 7)
      expect(sum("trial")).toBeGreaterThanOrEqual(1)
      // One trial per park, by counts: a trial's failure counts only when it is the one trial leased
      // in its open period, so every failure counted past the 5 that opened the breaker is one.
      expect(await recorded(prefix, model)).toBe(5 + sum("trial"))
      console.log(
        `${name}: 8 × 50 turns; ${requestsAt(model)} requests: ${sum("go")} before the breaker opened, ${
          sum("trial")
        } trials; ${sum("skip")} turns skipped the place`
      )
      if (name === "Redis") {
        const [opens, trials, reparks] = await raw<Array<string>>(
          "HMGET",
          `${prefix}local/${model}`,
          "opens",
          "trials",
          "reparks"
        )
        expect(Number(opens)).toBe(1)
        // One trial per park: each trial handed out failed and parked the place again.
        expect(Number(trials)).toBe(sum("trial"))
        expect(Number(reparks)).toBe(sum("trial"))
      }
    },
    120_000
  )

  it("a process killed with SIGKILL while holding the trial: another gets it once the lease ends", async () => {
    const { model, prefix } = placeFor()
    const options = { ...config(prefix), mock: mock.url, model, failures: 2, park: 200, trial: 5_000 }
    const [holder, other] = await Promise.all([start(options), start(options)])
    await holder.ask({ op: "fail" })
    await holder.ask({ op: "fail" })
    expect(await holder.ask({ op: "hold" })).toEqual({ tag: "Trial" })
    holder.child.kill("SIGKILL")
    expect((await holder.ended).signal).toBe("SIGKILL")
    expect(await other.ask({ op: "admit" })).toMatchObject({ tag: "Skip", why: "trial" })
    let asked = 1
    while ((await other.ask({ op: "admit" })).tag !== "Trial") {
      asked += 1
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    expect(asked).toBeGreaterThan(1)
    expect(await other.ask({ op: "admit" })).toMatchObject({ tag: "Skip", why: "trial" })
    await stopAll([other])
  }, 120_000)
})

describe("health shared through Redis across hosts", () => {
  it("two hosts, one with its clock 5 s ahead, share one breaker and one cooldown", async () => {
    const { model, prefix } = placeFor()
    const options = {
      store: "redis",
      url: server.url,
      prefix,
      mock: mock.url,
      model,
      failures: 3,
      park: 10_000,
      trial: 10_000
    }
    const [a, b] = await Promise.all([start({ ...options, skew: 0 }), start({ ...options, skew: 5_000 })])
    // Host b, 5 s ahead, parks the place and cools it down. Were each end written on b's clock and
    // read on a's, a would see 5 s more of each than b asked for; on Redis's clock, no more.
    for (let i = 0; i < 3; i++) await b.ask({ op: "fail" })
    const parked = await a.ask({ op: "admit" }) as { tag: string; why: string; untilIn: number }
    expect(parked).toMatchObject({ tag: "Skip", why: "parked" })
    expect(parked.untilIn).toBeGreaterThan(0)
    expect(parked.untilIn).toBeLessThanOrEqual(10_000)
    expect(await b.ask({ op: "admit" })).toMatchObject({ tag: "Skip", why: "parked" })
    await raw("DEL", `${prefix}local/${model}`)
    await b.ask({ op: "fail", coolFor: 20_000 })
    const cooling = await a.ask({ op: "admit" }) as { tag: string; why: string; untilIn: number }
    expect(cooling).toMatchObject({ tag: "Skip", why: "cooling" })
    expect(cooling.untilIn).toBeGreaterThan(0)
    expect(cooling.untilIn).toBeLessThanOrEqual(20_000)
    expect(await b.ask({ op: "admit" })).toMatchObject({ tag: "Skip", why: "cooling" })
    await stopAll([a, b])
  }, 120_000)

  it("Redis stopped mid-run: turns keep landing, one notice each, no crash; Redis back: shared again", async () => {
    const { model, prefix } = placeFor(true)
    const options = {
      store: "redis",
      url: server.url,
      prefix,
      mock: mock.url,
      model,
      failures: 3,
      park: 60_000,
      trial: 60_000,
      timeout: 1_000
    }
    const workers = await Promise.all(Array.from({ length: 3 }, () => start(options)))
    const turns = async (n: number) =>
      Promise.all(workers.map(async (w) => {
        w.child.stdin!.write(`${JSON.stringify({ op: "turns", n, pause: 10 })}\n`)
        return until(w, "done") as Promise<{ answered: number; failed: number; heard: Array<string> }>
      }))
    await turns(5)
    await server.stop()
    const during = await turns(10)
    await server.start()
    await new Promise((resolve) => setTimeout(resolve, 1_500))
    const after = await turns(5)
    for (const tally of after) {
      expect(tally).toMatchObject({ answered: 20, failed: 0 })
      expect(tally.heard).toHaveLength(2)
      expect(tally.heard[0]).toMatch(/did not answer .* health is kept in this process until it does$/)
      expect(tally.heard[1]).toMatch(/^health is shared through Redis at .* again$/)
    }
    expect(during.every((tally) => tally.answered === 15)).toBe(true)
    // Shared again: a breaker opened through Redis by one process is seen by the others.
    for (let i = 0; i < 3; i++) await workers[0]!.ask({ op: "fail" })
    await new Promise((resolve) => setTimeout(resolve, 100))
    for (const w of workers.slice(1)) expect(await w.ask({ op: "admit" })).toMatchObject({ tag: "Skip", why: "parked" })
    const ends = await stopAll(workers)
    for (const end of ends) expect(end).toMatchObject({ code: 0, signal: null })
  }, 120_000)
})
