// A plain model at opencode, which names its models PROVIDER/MODEL: the installed bin against a
// stand-in opencode that does not find the model, as opencode does not.
import { chmodSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

import { describe, expect, it } from "@effect/vitest"

import { runBin } from "./support/bin.js"

const standIn = `#!/usr/bin/env node
const model = process.argv[process.argv.indexOf("-m") + 1]
const error = { name: "ProviderModelNotFoundError", data: { message: "Model not found: " + model } }
process.stdout.write(JSON.stringify({ type: "error", sessionID: "ses_1", error }) + "\\n")
process.exit(1)
`

describe("a plain model at opencode", () => {
  it("is hinted as opencode/PROVIDER/MODEL when it is not found, and a full one is not", async () => {
    const dir = mkdtempSync(join(tmpdir(), "fallback-opencode-"))
    writeFileSync(join(dir, "opencode"), standIn)
    chmodSync(join(dir, "opencode"), 0o755)
    const env = { PATH: `${dir}:${process.env.PATH ?? ""}`, HOME: dir }
    const config = join(dir, "config.json")
    const plain = await runBin(config, env, ["run", "opencode/gpt-5", "--quiet", "Say hello"])
    expect(plain).toMatchObject({
      code: 13,
      out: "",
      err:
        "fallback: opencode has no model gpt-5 (retired, or never there); opencode names a model PROVIDER/MODEL: write the place as opencode/PROVIDER/gpt-5 (`opencode models` lists them)\n"
    })
    const full = await runBin(config, env, ["run", "opencode/openai/gpt-5", "--quiet", "Say hello"])
    expect(full).toMatchObject({
      code: 13,
      err: "fallback: opencode has no model openai/gpt-5 (retired, or never there)\n"
    })
  }, 60_000)
})
