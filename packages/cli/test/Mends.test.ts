import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as FileSystem from "@effect/platform/FileSystem"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { fallback } from "./run.js"

const configFile = Effect.gen(function*() {
  const fs = yield* FileSystem.FileSystem
  return `${yield* fs.makeTempDirectoryScoped({ prefix: "fallback-mends-" })}/config.json`
}).pipe(Effect.provide(NodeFileSystem.layer))

describe("fallback run's prompt", () => {
  it.scoped("an empty prompt, or one of only whitespace, is refused before any turn starts", () =>
    Effect.gen(function*() {
      const file = yield* configFile
      for (const prompt of ["", "   ", " \n\t \n"]) {
        expect(yield* fallback(file, "run", "claude/claude-opus-5", prompt)).toEqual({
          out: "",
          err:
            "fallback: the prompt is empty; give it as an argument (fallback run PLACE \"Fix the failing test\") or on stdin",
          ok: false
        })
      }
    }))
})
