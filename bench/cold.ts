/**
 * B4 cold start: the bundled `fallback` command (help pages and the commands that read the
 * config) against `node -e 0`, and what importing Effect whole costs. Each is started as its own
 * process, a warm-up first, then round by round, every command once a round, so a busy spell of
 * the machine falls on all of them alike.
 */
import { spawnSync } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { against, type Figure, figure, repetitions } from "./figures.js"

const bin = join(import.meta.dirname, "../packages/cli/bin/fallback.js")
const runs = Math.max(repetitions, 10)

const time = (args: ReadonlyArray<string>, env: NodeJS.ProcessEnv): number => {
  const start = performance.now()
  const done = spawnSync(process.execPath, args, { env, stdio: "ignore", timeout: 30_000 })
  if (done.error !== undefined) throw done.error
  return performance.now() - start
}

/** B4's figures: ms from spawn to exit, median of at least ten starts. */
export const cold = (): Array<Figure> => {
  const home = mkdtempSync(join(tmpdir(), "fallback-bench-home-"))
  const env = { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: join(home, ".config"), NO_COLOR: "1" }
  try {
    const commands: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
      ["node -e 0", ["-e", "0"]],
      ["fallback (no command)", [bin]],
      ["fallback --help", [bin, "--help"]],
      ["fallback run --help", [bin, "run", "--help"]],
      ["fallback chain X", [bin, "chain", "X"]],
      ["fallback chain claude/a (empty config)", [bin, "chain", "claude/a"]],
      ["fallback list", [bin, "list"]],
      ["fallback status", [bin, "status"]],
      ["fallback waits", [bin, "waits"]],
      ["fallback accounts", [bin, "accounts"]],
      ["fallback doctor", [bin, "doctor"]],
      ["node -e 'import(\"effect\")'", ["--input-type=module", "-e", "await import(\"effect\")"]]
    ]
    for (const [, args] of commands) time(args, env)
    const times = commands.map(() => [] as Array<number>)
    for (let round = 0; round < runs; round++) {
      commands.forEach(([, args], i) => times[i]!.push(time(args, env)))
    }
    return against(commands.map(([name], i) => figure("B4", name, "ms", times[i]!)), "node -e 0")
  } finally {
    rmSync(home, { recursive: true, force: true })
  }
}
