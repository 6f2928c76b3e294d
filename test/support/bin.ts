/**
 * The installed `fallback` bin, built once for the whole end-to-end project (vitest's global
 * setup), and a way to run it as a user's shell would, without blocking this process.
 */
import { execFileSync, spawn } from "node:child_process"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

export const root = fileURLToPath(new URL("../..", import.meta.url))
export const bin = join(root, "node_modules", ".bin", "fallback")

/** Builds the bundle the bin runs, so the tests see this tree's code (a minute on a loaded machine). */
export const setup = () => {
  execFileSync(process.execPath, [join(root, "packages", "cli", "build.mjs")])
}

/** What a run of the bin printed, its exit status, or the signal that ended it. */
export interface Ran {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly out: string
  readonly err: string
}

/** Runs the bin with FALLBACK_CONFIG at `config`, a bare environment plus `env`, and `input` on stdin. */
export const runBin = (
  config: string,
  env: Readonly<Record<string, string>>,
  args: ReadonlyArray<string>,
  options: { readonly input?: string; readonly killAfter?: number } = {}
) =>
  new Promise<Ran>((resolve) => {
    const child = spawn(bin, [...args], {
      env: { PATH: process.env.PATH ?? "", HOME: tmpdir(), FALLBACK_CONFIG: config, ...env },
      stdio: ["pipe", "pipe", "pipe"]
    })
    let [out, err] = ["", ""]
    child.stdout.on("data", (chunk) => (out += chunk))
    child.stderr.on("data", (chunk) => (err += chunk))
    child.stdin.on("error", () => {})
    child.stdin.end(options.input ?? "")
    const timer = setTimeout(() => child.kill("SIGKILL"), options.killAfter ?? 50_000)
    child.on("close", (code, signal) => {
      clearTimeout(timer)
      resolve({ code, signal, out, err })
    })
  })
