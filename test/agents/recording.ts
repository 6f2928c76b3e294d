/**
 * The recordings of what each CLI printed per fault, kept under test/fixtures/agents and replayed
 * by the ordinary test run.
 */
import type { Cli as CliOptions } from "@fallback/backends"
import * as fs from "node:fs"
import * as path from "node:path"
import type { Cli, Fault } from "./expected.js"

/** What a recording plays: a fault of the table, or `think` (claude's answer that thinks first, in thinking.json). */
export type Recorded = Fault | "think"

export interface Recording extends CliOptions.Finished {
  readonly cli: Cli
  readonly version: string
  readonly fault: Recorded
  readonly model: string
  readonly judged: string
  readonly ms: number
}

export const folder = path.resolve(import.meta.dirname, "../fixtures/agents")

const repository = path.resolve(import.meta.dirname, "../..")

export const file = (cli: Cli, fault: Recorded): string =>
  path.join(folder, cli, `${fault === "think" ? "thinking" : fault}.json`)

/** Writes a recording, with the run's folders turned into placeholders so it reads the same everywhere. */
export const write = (recording: Recording, home: string): void => {
  fs.mkdirSync(path.dirname(file(recording.cli, recording.fault)), { recursive: true })
  const text = JSON.stringify(recording, null, 2)
    .split(path.join(home, "tmp")).join("$TMPDIR")
    .split(home).join("$HOME")
    .split(repository).join("$REPO")
  fs.writeFileSync(file(recording.cli, recording.fault), text + "\n")
}

export const read = (cli: Cli, fault: Recorded): Recording | undefined => {
  try {
    return JSON.parse(fs.readFileSync(file(cli, fault), "utf8"))
  } catch {
    return undefined
  }
}
