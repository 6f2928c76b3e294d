/**
 * Fake executables written by the tests: small node programs with a shebang, so a real child
 * process runs them exactly as it would run an agent CLI.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

/** A fresh folder for one test's executables and what they leave behind. */
export const folder = (): string => fs.mkdtempSync(path.join(os.tmpdir(), "fallback-fake-"))

/** Writes an executable node program named `name` into `dir` and gives its path. */
export const executable = (dir: string, name: string, body: string): string => {
  const file = path.join(dir, name)
  fs.writeFileSync(file, `#!${process.execPath}\n${body}\n`, { mode: 0o755 })
  return file
}

/** Writes an executable that prints `stdout` and `stderr` as given and exits with `exitCode`. */
export const printing = (dir: string, name: string, printed: {
  readonly stdout?: string
  readonly stderr?: string
  readonly exitCode?: number
}): string =>
  executable(
    dir,
    name,
    `require("node:fs").writeFileSync(${
      JSON.stringify(path.join(dir, "argv.json"))
    }, JSON.stringify({ argv: process.argv.slice(2), env: process.env }))
process.stdout.write(${JSON.stringify(printed.stdout ?? "")})
process.stderr.write(${JSON.stringify(printed.stderr ?? "")})
process.exitCode = ${printed.exitCode ?? 0}`
  )

/** What the last run of a `printing` executable was given. */
export const given = (dir: string): { readonly argv: ReadonlyArray<string>; readonly env: Record<string, string> } =>
  JSON.parse(fs.readFileSync(path.join(dir, "argv.json"), "utf8"))

/** Whether a process is still alive: there, and not a zombie waiting for a parent that will never reap it. */
export const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  try {
    return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, "utf8"))
  } catch {
    return true
  }
}
