import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import { Effect } from "effect"
import * as FileSystem from "effect/FileSystem"

import { keys } from "./terminal.js"

/** The config file each page test starts from. */
export const start = `${
  JSON.stringify(
    {
      steps: {
        "claude@work/claude-opus-5": {
          to: "codex/gpt-5.6-sol",
          retrying: { tries: 3, policy: "exponential", timeout: 90 }
        },
        "codex/gpt-5.6-sol": { to: "gemini/gemini-3-pro" }
      },
      accounts: { claude: [{ name: "work" }] }
    },
    null,
    2
  )
}\n`

/** A config file holding {@link start}, in a folder of its own. */
export const configFile = Effect.gen(function*() {
  const fs = yield* FileSystem.FileSystem
  const file = `${yield* fs.makeTempDirectoryScoped({ prefix: "fallback-edit-" })}/config.json`
  yield* fs.writeFileString(file, start)
  return file
}).pipe(Effect.provide(NodeFileSystem.layer))

/** The file's text. */
export const text = (file: string) =>
  Effect.flatMap(FileSystem.FileSystem, (fs) => fs.readFileString(file)).pipe(
    Effect.provide(NodeFileSystem.layer)
  )

/** The file's steps. */
export const steps = (file: string) => Effect.map(text(file), (text) => (JSON.parse(text) as { steps: unknown }).steps)

/** The keys the page tests press. */
export const { ctrlC, down, enter, escape, up } = keys

/** A character typed. */
export const char = keys.char
