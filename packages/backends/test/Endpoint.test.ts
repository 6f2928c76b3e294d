import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Endpoint from "../src/Endpoint.js"
import { retriesOff } from "../src/internal/cli/gemini.js"

describe("Endpoint", () => {
  it("a codex endpoint named like one of codex's own providers gets another id: codex takes no settings for those", () => {
    const id = (provider: string) =>
      (Endpoint.reach("codex", { baseUrl: "http://127.0.0.1:9/v1", provider }, "m")!.options.provider as { id: string })
        .id
    expect([id("ollama"), id("openai"), id("lmstudio"), id("local")]).toEqual([
      "ollama-endpoint",
      "openai-endpoint",
      "lmstudio-endpoint",
      "local"
    ])
  })
})

describe("gemini's own retrying off", () => {
  const folder = () => fs.mkdtempSync(path.join(os.tmpdir(), "fallback-gemini-off-"))
  const json = (file: string) => JSON.parse(fs.readFileSync(file, "utf8"))

  it("an account's config dir gets maxAttempts 1 in its settings, the rest kept", () => {
    const dir = folder()
    fs.mkdirSync(path.join(dir, ".gemini"))
    fs.writeFileSync(path.join(dir, ".gemini", "settings.json"), JSON.stringify({ general: { vimMode: true }, ui: {} }))
    expect(retriesOff({ GEMINI_CLI_HOME: dir, HOME: "/nowhere" }, path.join(dir, "managed"), {})).toEqual({})
    expect(json(path.join(dir, ".gemini", "settings.json"))).toEqual({
      general: { vimMode: true, maxAttempts: 1 },
      ui: {}
    })
  })

  it("the user's own .gemini (HOME's, or GEMINI_CLI_HOME's of the user) is never written: gemini runs in a home linking to it", () => {
    for (const own of ["HOME", "GEMINI_CLI_HOME"] as const) {
      const home = folder()
      const managed = path.join(home, "managed")
      fs.mkdirSync(path.join(home, ".gemini", "tmp"), { recursive: true })
      const settings = JSON.stringify({ general: { maxAttempts: 5 } })
      fs.writeFileSync(path.join(home, ".gemini", "settings.json"), settings)
      fs.writeFileSync(path.join(home, ".gemini", "oauth_creds.json"), "{}")
      const env = own === "HOME" ? { HOME: home } : { HOME: "/nowhere", GEMINI_CLI_HOME: home }
      const parent = own === "HOME" ? {} : { GEMINI_CLI_HOME: home }
      expect(retriesOff(env, managed, parent)).toEqual({ GEMINI_CLI_HOME: managed })
      expect(fs.readFileSync(path.join(home, ".gemini", "settings.json"), "utf8")).toBe(settings)
      expect(json(path.join(managed, ".gemini", "settings.json"))).toEqual({ general: { maxAttempts: 1 } })
      for (const entry of ["tmp", "oauth_creds.json"]) {
        expect(fs.readlinkSync(path.join(managed, ".gemini", entry))).toBe(path.join(home, ".gemini", entry))
      }
      // again: nothing changes, nothing fails
      expect(retriesOff(env, managed, parent)).toEqual({ GEMINI_CLI_HOME: managed })
    }
  })
})
