import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import { describe, expect, it } from "@effect/vitest"
import { Effect, FileSystem, Layer, Path, Result } from "effect"
import { Accounts, ConfigFile, Steps } from "../src/index.js"

const Node = Layer.merge(NodeFileSystem.layer, NodePath.layer)
const file = "/home/u/.config/fallback/config.json"

const providers = {
  anthropic: { kind: "anthropic-messages", baseUrl: "http://127.0.0.1:1", key: { fromEnv: "ANTHROPIC_API_KEY" } },
  openai: { kind: "openai-compatible", baseUrl: "http://127.0.0.1:1/v1", key: { fromEnv: "OPENAI_API_KEY" } }
}

const decoded = (json: unknown) => ConfigFile.decode(file, JSON.stringify(json), ConfigFile.builtinClis)
const refusal = (json: unknown) => Result.getOrThrow(Result.flip(decoded(json))).message

describe("ConfigFile aliases: the model names clients send, each to a place", () => {
  it("reads them, and writes them back as they were written", () => {
    const json = {
      steps: {},
      accounts: { anthropic: [{ name: "work", env: { ANTHROPIC_API_KEY: { fromEnv: "WORK_KEY" } } }] },
      providers,
      aliases: {
        "claude-sonnet-4-5": "anthropic/claude-sonnet-4-5",
        "claude-opus-4-1": "anthropic@work/claude-opus-4-1",
        "gpt-5.5": "openai/gpt-5.5"
      }
    }
    const document = Result.getOrThrow(decoded(json))
    expect(document.aliases).toEqual(json.aliases)
    expect(JSON.parse(ConfigFile.encode(document))).toEqual(json)
  })

  it("a value that is not a place is refused, at its alias, with the form it should take", () => {
    expect(refusal({ providers, aliases: { "claude-sonnet-4-5": "claude-sonnet-4-5" } })).toBe(
      `${file} is not a fallback config: at aliases["claude-sonnet-4-5"]: "claude-sonnet-4-5" is not a place: ` +
        `there is no "/" and so no model; expected CLI[@ACCOUNT]/MODEL (e.g. claude@work/claude-opus-5); write the place ` +
        `it is sent to, PROVIDER/MODEL or CLI[@ACCOUNT]/MODEL, such as "anthropic/claude-sonnet-4-5"`
    )
    expect(refusal({ providers, aliases: { fast: 5 } })).toContain("at aliases.fast:")
  })

  it("a place at a provider the file does not have, or an account it does not set up, is refused with the fix", () => {
    expect(refusal({ providers, aliases: { "gpt-5.5": "opnai/gpt-5.5" } })).toBe(
      `${file}: aliases["gpt-5.5"] (opnai/gpt-5.5) names the CLI "opnai", which is not one fallback knows ` +
        `(did you mean openai?); known: claude, codex, gemini, opencode, antigravity, anthropic, openai`
    )
    expect(refusal({ providers, aliases: { big: "anthropic@home/claude-opus-4-1" } })).toContain(
      `names the account "home", which is not set up for anthropic (it has none); add it with: fallback accounts add anthropic home`
    )
  })

  it.effect("survive a change made through the SDK to the same file", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped({ prefix: "fallback-aliases-" })
      const config = (yield* Path.Path).join(dir, "config.json")
      const aliases = { "claude-sonnet-4-5": "anthropic/claude-sonnet-4-5" }
      yield* fs.writeFileString(config, JSON.stringify({ providers, aliases }))
      yield* Effect.flatMap(Steps.Steps, (steps) => steps.points("anthropic/claude-sonnet-4-5", "openai/gpt-5.5"))
        .pipe(
          Effect.provide(
            Layer.mergeAll(Steps.Steps.layer, Accounts.Accounts.layer).pipe(
              Layer.provide(ConfigFile.Store.layerFile(config))
            )
          )
        )
      expect(JSON.parse(yield* fs.readFileString(config)).aliases).toEqual(aliases)
    }).pipe(Effect.scoped, Effect.provide(Node)))
})
