import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as FileSystem from "effect/FileSystem"

import { edit as session, keys } from "./terminal.js"

/** A fake HOME with claude's own folder and ~/.claude-work, and a stand-in claude on its PATH. */
const fakeHome = Effect.gen(function*() {
  const fs = yield* FileSystem.FileSystem
  const home = yield* fs.makeTempDirectoryScoped({ prefix: "fallback-init-page-" })
  yield* fs.makeDirectory(`${home}/bin`)
  yield* fs.writeFileString(`${home}/bin/claude`, "#!/bin/sh\necho '2.1.332 (Claude Code)'\n", { mode: 0o755 })
  yield* fs.makeDirectory(`${home}/.claude`)
  yield* fs.writeFileString(`${home}/.claude/.credentials.json`, "{}")
  yield* fs.makeDirectory(`${home}/.claude-work`)
  return { home, config: `${home}/config.json`, env: { HOME: home, PATH: `${home}/bin` } }
}).pipe(Effect.provide(NodeFileSystem.layer))

const written = (file: string) =>
  Effect.flatMap(FileSystem.FileSystem, (fs) => fs.readFileString(file)).pipe(
    Effect.map((text) => JSON.parse(text) as { accounts: unknown; $schema: string }),
    Effect.provide(NodeFileSystem.layer)
  )

describe("fallback init on a terminal", () => {
  it.effect("offers every account it sees, picked; space unpicks one, enter writes the rest", () =>
    Effect.gen(function*() {
      const { config, env } = yield* fakeHome
      const ran = yield* session(config, [keys.down, keys.down, keys.down, keys.space, keys.enter], {
        command: "init",
        env
      })
      const asked = ran.frames.join("").replace(/\u001b\[[0-9;?]*[A-Za-z]/g, "")
      expect(asked).toContain(`The accounts to write to ${config} (space picks, enter writes)`)
      expect(asked).toContain("claude@login")
      expect(asked).toContain("claude@work")
      expect((yield* written(config)).accounts).toEqual({ claude: [{ name: "login" }] })
      expect(ran.out).toContain(`Wrote ${config}.`)
    }))

  it.effect("ctrl+c writes nothing", () =>
    Effect.gen(function*() {
      const { config, env } = yield* fakeHome
      const ran = yield* session(config, [keys.ctrlC], { command: "init", env })
      expect(ran.out).toContain("Nothing written.")
      const fs = yield* FileSystem.FileSystem
      expect(yield* fs.exists(config)).toBe(false)
    }).pipe(Effect.provide(NodeFileSystem.layer)))
})
