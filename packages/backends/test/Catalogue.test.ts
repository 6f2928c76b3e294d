/**
 * Each agent CLI's backend declares the models it runs (issue 22, "The breaker preset with agent
 * CLIs"): the maintained catalogue of its CLI, then the config's own for it.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Antigravity from "../src/Antigravity.js"
import * as Catalogue from "../src/Catalogue.js"
import * as Claude from "../src/Claude.js"
import * as Codex from "../src/Codex.js"
import * as Gemini from "../src/Gemini.js"
import * as OpenCode from "../src/OpenCode.js"

const namesOf = (backend: { readonly capabilities: { readonly models: ReadonlyArray<{ readonly name: string }> } }) =>
  backend.capabilities.models.map((model) => model.name)

describe("Catalogue", () => {
  it("every CLI backend serves its CLI's catalogue, plus the models it is given, once each", () => {
    const made = { claude: Claude.make, codex: Codex.make, gemini: Gemini.make, opencode: OpenCode.make }
    for (const [cli, make] of Object.entries({ ...made, antigravity: Antigravity.make })) {
      expect(Catalogue.models(cli).length).toBeGreaterThan(0)
      expect(namesOf(make())).toEqual(Catalogue.models(cli))
      const listed = Catalogue.models(cli)[0]!
      expect(namesOf(make({ models: ["next-model", listed] }))).toEqual([...Catalogue.models(cli), "next-model"])
    }
  })

  it("names the models README and the reference use, and opencode's as PROVIDER/MODEL", () => {
    expect(Catalogue.models("claude")).toEqual(expect.arrayContaining(["claude-opus-5", "claude-sonnet-5"]))
    expect(Catalogue.models("codex")).toEqual(expect.arrayContaining(["gpt-5.6-sol", "gpt-5.5", "gpt-5"]))
    expect(Catalogue.models("gemini")).toEqual(expect.arrayContaining(["gemini-3-pro", "gemini-2.5-flash"]))
    expect(Catalogue.models("opencode")).toContain("anthropic/claude-sonnet-4-5")
    expect(Catalogue.models("opencode").every((name) => /^[a-z]+\/[^/]+$/.test(name))).toBe(true)
    expect(Catalogue.models("a-cli-it-does-not-know", ["own"])).toEqual(["own"])
  })
})
