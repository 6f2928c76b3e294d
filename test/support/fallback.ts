/** The command's bundle run as a user runs it, against one config file, in a HOME of no one's. */
import { spawn } from "node:child_process"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const bundle = join(fileURLToPath(new URL("../..", import.meta.url)), "packages", "cli", "dist", "fallback.cjs")

/** What a run of the command gave: its exit status and what it wrote. */
export interface Ran {
  readonly code: number | null
  readonly out: string
  readonly err: string
}

/** Runs `fallback ARGS…` with `FALLBACK_CONFIG` set to `config`. */
export const fallback = (config: string, ...args: Array<string>) =>
  new Promise<Ran>((resolve) => {
    const child = spawn(process.execPath, [bundle, ...args], {
      env: { PATH: process.env.PATH ?? "", HOME: tmpdir(), FALLBACK_CONFIG: config },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let [out, err] = ["", ""]
    child.stdout.on("data", (chunk) => (out += chunk))
    child.stderr.on("data", (chunk) => (err += chunk))
    child.on("close", (code) => resolve({ code, out, err }))
  })
