/**
 * Process hygiene (issue 12): whatever the agent CLI does — hangs, ignores SIGTERM, starts
 * grandchildren, leaves a process holding its stdout — and however fallback is stopped (SIGINT,
 * SIGTERM, SIGHUP: a closed terminal), no process is left behind, checked by pid and by process
 * group. Bound by counts of polls, never by a figure of time.
 */
import { describe, expect, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { bin } from "./support/bin.js"

/** Whether a process (or, with a negative id, a process group) still has a live member. */
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  if (pid < 0) return true
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"))
  } catch {
    return false
  }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const until = async (ok: () => boolean, polls = 600) => {
  for (let i = 0; i < polls && !ok(); i++) await pause(50)
  return ok()
}

/**
 * A fake claude (the CLI gets only the environment a turn gives it, so its mode is written in):
 * prints its session, records its pid and its grandchild's, then hangs, hangs ignoring SIGTERM, or
 * answers and exits leaving the grandchild holding its stdout; `lingers …` answers (or, `lingers
 * failing`, prints a 429 result) and then stays running, as `stubborn`, or as `holder` without exiting.
 */
const fakeClaude = (dir: string, mode: string) => {
  const file = join(dir, "claude")
  writeFileSync(
    file,
    `#!${process.execPath}
const { spawn } = require("node:child_process"), fs = require("node:fs"), path = require("node:path")
const dir = ${JSON.stringify(dir)}, mode = ${JSON.stringify(mode)}
const out = (event) => process.stdout.write(JSON.stringify(event) + "\\n")
const lingers = mode.startsWith("lingers")
out({ type: "system", subtype: "init", session_id: "s-1" })
const grandchild = spawn(process.execPath, ["-e", "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)"], {
  stdio: mode.endsWith("holder") ? ["ignore", "inherit", "inherit"] : "ignore"
})
if (mode === "holder") grandchild.unref()
if (mode.endsWith("stubborn")) process.on("SIGTERM", () => {})
fs.writeFileSync(path.join(dir, "pids.tmp"), JSON.stringify({ cli: process.pid, grandchild: grandchild.pid }))
fs.renameSync(path.join(dir, "pids.tmp"), path.join(dir, "pids"))
if (mode === "lingers failing") {
  out({ type: "result", subtype: "success", is_error: true, api_error_status: 429, result: "Rate limited", session_id: "s-1" })
} else if (mode === "holder" || lingers) {
  out({ type: "assistant", message: { content: [{ type: "text", text: "done" }] } })
  out({ type: "result", subtype: "success", is_error: false, result: "done", session_id: "s-1", usage: { input_tokens: 1, output_tokens: 1 } })
}
if (mode !== "holder") setInterval(() => {}, 1000)
`,
    { mode: 0o755 }
  )
  return file
}

const start = (mode: string, flags: ReadonlyArray<string> = []) => {
  const dir = mkdtempSync(join(tmpdir(), "fallback-hygiene-"))
  const config = join(dir, "config.json")
  writeFileSync(config, JSON.stringify({ clis: { claude: { bin: fakeClaude(dir, mode) } } }))
  const child = spawn(bin, ["run", ...flags, "claude/claude-sonnet-4-5", "say hi"], {
    env: { PATH: process.env.PATH ?? "", HOME: dir, FALLBACK_CONFIG: config },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let [out, err] = ["", ""]
  child.stdout.on("data", (chunk) => (out += chunk))
  child.stderr.on("data", (chunk) => (err += chunk))
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal }))
  )
  const pids = async () => {
    expect(await until(() => existsSync(join(dir, "pids")))).toBe(true)
    return JSON.parse(readFileSync(join(dir, "pids"), "utf8")) as { cli: number; grandchild: number }
  }
  return { child, closed, pids, output: () => ({ out, err }) }
}

const cleanUp = (pids: ReadonlyArray<number>) => {
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL")
    } catch {
      // gone, as it should be
    }
  }
}

describe("no process left behind", () => {
  it.each(
    [
      ["SIGINT", "hang"],
      ["SIGTERM", "hang"],
      ["SIGHUP", "hang"],
      ["SIGQUIT", "hang"],
      ["SIGTERM", "stubborn"],
      ["SIGHUP", "stubborn"],
      ["SIGQUIT", "stubborn"]
    ] as const
  )("%s to fallback while the CLI does %s: the CLI, its grandchild and its group are gone", async (signal, mode) => {
    const run = start(mode)
    const { cli, grandchild } = await run.pids()
    try {
      expect(alive(cli) && alive(grandchild)).toBe(true)
      run.child.kill(signal)
      const ended = await run.closed
      // issue 23: the status a shell gives a command a signal ended, 128 + the signal's number
      expect(ended).toEqual({ code: { SIGINT: 130, SIGTERM: 143, SIGHUP: 129, SIGQUIT: 131 }[signal], signal: null })
      expect(await until(() => !alive(cli) && !alive(grandchild) && !alive(-cli))).toBe(true)
      expect(run.output().err).not.toMatch(/\n\s+at /)
    } finally {
      cleanUp([cli, grandchild])
    }
  }, 60_000)

  it(
    "a CLI that answers and exits leaving a process holding its stdout: the turn ends, the holder is gone",
    async () => {
      const run = start("holder")
      const { cli, grandchild } = await run.pids()
      try {
        const ended = await run.closed
        expect({ ...ended, out: run.output().out }).toEqual({ code: 0, signal: null, out: "done\n" })
        expect(await until(() => !alive(cli) && !alive(grandchild) && !alive(-cli))).toBe(true)
      } finally {
        cleanUp([cli, grandchild])
      }
    },
    60_000
  )

  // issue 23: the turn's deadline is far off, so a run held by the lingering CLI would not end in time
  it.each(["lingers", "lingers stubborn", "lingers holder"])(
    "a CLI that answers and then stays running (%s): fallback exits 0 with the answer, nothing it started is left",
    async (mode) => {
      const run = start(mode, ["--deadline", "10m"])
      const { cli, grandchild } = await run.pids()
      try {
        const ended = await run.closed
        expect({ ...ended, out: run.output().out }).toEqual({ code: 0, signal: null, out: "done\n" })
        expect(await until(() => !alive(cli) && !alive(grandchild) && !alive(-cli))).toBe(true)
      } finally {
        cleanUp([cli, grandchild])
      }
    },
    60_000
  )

  it(
    "a CLI that prints a failed result and then stays running: ended after the grace, the turn fails as its result says",
    async () => {
      const run = start("lingers failing", ["--deadline", "5s"])
      const { cli, grandchild } = await run.pids()
      try {
        const ended = await run.closed
        // 10 (RateLimited): the 429 its result names, not the turn's deadline (19, Timeout, before)
        expect({ ...ended, out: run.output().out }).toEqual({ code: 10, signal: null, out: "" })
        expect(await until(() => !alive(cli) && !alive(grandchild) && !alive(-cli))).toBe(true)
      } finally {
        cleanUp([cli, grandchild])
      }
    },
    60_000
  )
})
