// `fallback run`'s prompt as a shell gives it: on stdin, empty, to the installed bin.
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

import { describe, expect, it } from "@effect/vitest"

import { runBin } from "./support/bin.js"

describe("fallback run's prompt on stdin", () => {
  it("refuses empty stdin, or only whitespace, before any turn starts", async () => {
    const config = join(mkdtempSync(join(tmpdir(), "fallback-prompt-")), "config.json")
    const refused = {
      code: 1,
      out: "",
      err:
        "fallback: the prompt is empty; give it as an argument (fallback run PLACE \"Fix the failing test\") or on stdin\n"
    }
    expect(await runBin(config, {}, ["run", "claude/claude-opus-5"], { input: "" })).toMatchObject(refused)
    expect(await runBin(config, {}, ["run", "claude/claude-opus-5", "-"], { input: " \n\n\t" })).toMatchObject(refused)
  }, 60_000)
})
