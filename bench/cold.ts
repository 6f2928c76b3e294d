/**
 * B4 cold start: the bundled `fallback` command, `--help` and `chain X`, against `node -e 0`, and
 * what importing Effect whole costs. Each is started as its own process, a warm-up first.
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
      ["fallback --help", [bin, "--help"]],
      ["fallback chain X", [bin, "chain", "X"]],
      ["fallback chain claude/a (empty config)", [bin, "chain", "claude/a"]],
      ["node -e 'import(\"effect\")'", ["--input-type=module", "-e", "await import(\"effect\")"]]
    ]
    const figures = commands.map(([name, args]) => {
      time(args, env)
      return figure("B4", name, "ms", Array.from({ length: runs }, () => time(args, env)))
    })
    return against(figures, "node -e 0")
  } finally {
    rmSync(home, { recursive: true, force: true })
  }
}
