import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ConfigFile } from "../src/index.js"
import { bundleWriter } from "./fixtures/bundle.js"

let folder = ""
let writer = ""

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), "fallback-writers-"))
  writer = join(folder, "writer.mjs")
  await bundleWriter(writer)
})

afterAll(() => rmSync(folder, { recursive: true, force: true }))

interface Run {
  readonly child: ChildProcess
  readonly done: Promise<{ readonly code: number | null; readonly signal: string | null; readonly out: string }>
}

const start = (...args: Array<string>): Run => {
  const child = spawn(process.execPath, [writer, ...args], { stdio: ["ignore", "pipe", "pipe"] })
  let out = ""
  child.stdout!.on("data", (chunk) => (out += chunk))
  child.stderr!.on("data", (chunk) => (out += chunk))
  const done = new Promise<{ code: number | null; signal: string | null; out: string }>((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal, out }))
  )
  return { child, done }
}

const ready = (run: Run) =>
  new Promise<void>((resolve) => {
    const look = (chunk: Buffer) => {
      if (chunk.toString().includes("ready")) {
        run.child.stdout!.off("data", look)
        resolve()
      }
    }
    run.child.stdout!.on("data", look)
  })

const decodeFile = (file: string) => ConfigFile.decode(file, readFileSync(file, "utf8"), ConfigFile.builtinClis)

describe("the config file under several processes", () => {
  it("8 processes × 50 edits on one file: every edit is there afterwards", async () => {
    const file = join(folder, "many", "config.json")
    const runs = Array.from({ length: 8 }, (_, id) => start(file, String(id), "50"))
    const results = await Promise.all(runs.map((run) => run.done))
    for (const result of results) expect(result).toEqual({ code: 0, signal: null, out: "" })
    const document = Result.getOrThrow(decodeFile(file))
    expect(Object.keys(document.steps).length).toBe(400)
    for (let id = 0; id < 8; id++) {
      for (let i = 0; i < 50; i++) expect(document.steps[`claude/w${id}-${i}`]?.to?.toString()).toBe(`codex/w${id}`)
    }
    expect(readdirSync(join(folder, "many")).sort()).toEqual(["config.json"])
  }, 120_000)

  it(
    "writers killed with SIGKILL mid-save 100 times: the file always decodes, and the next writer gets the lock",
    async () => {
      const file = join(folder, "killed", "config.json")
      expect((await start(file, "first", "1").done).code).toBe(0)
      const lanes = 4
      let kills = 0
      await Promise.all(Array.from({ length: lanes }, async (_, lane) => {
        for (let round = 0; round < 100 / lanes; round++) {
          const run = start(file, String(lane), "forever")
          await ready(run)
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 40))
          run.child.kill("SIGKILL")
          expect((await run.done).signal).toBe("SIGKILL")
          kills++
          expect(Result.isSuccess(decodeFile(file))).toBe(true)
        }
      }))
      expect(kills).toBe(100)
      const last = await start(file, "last", "3").done
      expect(last).toEqual({ code: 0, signal: null, out: "" })
      const document = Result.getOrThrow(decodeFile(file))
      expect(document.steps["claude/wlast-2"]?.to?.toString()).toBe("codex/wlast")
      expect(document.steps["claude/wfirst-0"]?.to?.toString()).toBe("codex/wfirst")
      expect(readdirSync(join(folder, "killed")).filter((name) => name !== "config.json")).toEqual([])
    },
    180_000
  )

  it("a step written through the SDK in one process is the one another process reads back", async () => {
    const file = join(folder, "shared", "config.json")
    expect((await start(file, "a", "2").done).code).toBe(0)
    const read = await start(file, "chain", "claude/wa-1").done
    expect(read).toEqual({ code: 0, signal: null, out: "[\"claude/wa-1\",\"codex/wa\"]\n" })
  }, 60_000)
})
