import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as FileSystem from "effect/FileSystem"
import { fallback, fallbackWith } from "./run.js"

const configFile = Effect.gen(function*() {
  const fs = yield* FileSystem.FileSystem
  return `${yield* fs.makeTempDirectoryScoped({ prefix: "fallback-mends-" })}/config.json`
}).pipe(Effect.provide(NodeFileSystem.layer))

describe("fallback run's prompt", () => {
  it.effect("an empty prompt, or one of only whitespace, is refused before any turn starts", () =>
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

/** A folder for PATH and HOME, with a stand-in claude that answers --version when `claude` is set. */
const machine = (claude: boolean) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const dir = yield* fs.makeTempDirectoryScoped({ prefix: "fallback-doctor-" })
    if (claude) yield* fs.writeFileString(`${dir}/claude`, "#!/bin/sh\necho '2.1.332 (Claude Code)'\n", { mode: 0o755 })
    return { dir, env: { PATH: dir, HOME: dir } }
  }).pipe(Effect.provide(NodeFileSystem.layer))

describe("fallback doctor", () => {
  it.effect("says ✗ when no agent CLI is installed and no provider is configured", () =>
    Effect.gen(function*() {
      const file = yield* configFile
      const { env } = yield* machine(false)
      const ran = yield* fallbackWith(env, file, "doctor")
      expect(ran.ok).toBe(false)
      expect(ran.out).toContain(
        "✗ places           no agent CLI is installed and no provider is configured: a turn has nowhere to run\n" +
          "    fix: install one (npm install -g @anthropic-ai/claude-code, or npm install -g @openai/codex, or " +
          "npm install -g @google/gemini-cli, or npm install -g opencode-ai), or add a model server under \"providers\""
      )
      expect(ran.err).toBe("fallback: 1 problem found; the line that fixes each is above")
      const { env: withClaude } = yield* machine(true)
      expect((yield* fallbackWith(withClaude, file, "doctor")).out).not.toContain("places")
    }))

  it.effect("checks each step's models against a provider's models list (nearest name) and opencode's form", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const file = yield* configFile
      const { env } = yield* machine(false)
      yield* fs.writeFileString(
        file,
        JSON.stringify({
          steps: { "local/qwen3:8b": { to: "local/qwen3:4b" }, "local/qwen3:4b": { retrying: { tries: 1 } } },
          providers: {
            local: { kind: "openai-compatible", baseUrl: "http://127.0.0.1:11434/v1", models: [{ name: "qwen3:8b" }] }
          }
        })
      )
      const ran = yield* fallbackWith(env, file, "doctor")
      expect(ran.out.split("\n").filter((line) => /^. step|fix: write/.test(line))).toEqual([
        "✗ step             local/qwen3:8b → local/qwen3:4b: local has no model qwen3:4b (did you mean qwen3:8b?); " +
        "it serves qwen3:8b",
        "    fix: write a model it serves in the step (fallback edit), or add { \"name\": \"qwen3:4b\" } to " +
        `providers.local.models in ${file}`,
        "✗ step             local/qwen3:4b (tries again; no next place): local has no model qwen3:4b " +
        "(did you mean qwen3:8b?); it serves qwen3:8b",
        "    fix: write a model it serves in the step (fallback edit), or add { \"name\": \"qwen3:4b\" } to " +
        `providers.local.models in ${file}`
      ])
      expect(ran.ok).toBe(false)
      yield* fs.writeFileString(file, JSON.stringify({ steps: { "opencode/gpt-5": { to: "opencode/openai/gpt-5" } } }))
      expect((yield* fallbackWith(env, file, "doctor")).out).toContain(
        "✗ step             opencode/gpt-5 → opencode/openai/gpt-5: opencode names a model PROVIDER/MODEL, not gpt-5\n" +
          "    fix: write the place as opencode/PROVIDER/gpt-5 (`opencode models` lists them)"
      )
      // an agent CLI's step is checked against its catalogue, as `point` checks it
      yield* fs.writeFileString(
        file,
        JSON.stringify({ steps: { "claude/claude-opuss-5": { to: "claude/claude-opus-5" } } })
      )
      const typo = (yield* fallbackWith(env, file, "doctor")).out
      expect(typo).toContain("claude has no model claude-opuss-5 (did you mean claude-opus-5")
      expect(typo).toContain(`add "claude-opuss-5" to clis.claude.models in ${file}`)
    }).pipe(Effect.provide(NodeFileSystem.layer)))

  it.effect("calls an account signed in only where the CLI's sign-in file is, unless a key stands in", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const file = yield* configFile
      const { dir, env } = yield* machine(true)
      yield* fs.makeDirectory(`${dir}/work`)
      yield* fs.writeFileString(
        file,
        JSON.stringify({
          accounts: {
            claude: [
              { name: "login" },
              { name: "work", configDir: `${dir}/work` },
              { name: "key", env: { ANTHROPIC_API_KEY: { fromEnv: "KEY" } } }
            ]
          }
        })
      )
      const accounts = (out: string) =>
        out.split("\n").filter((line) => /claude@(login|work)|fix: (CLAUDE|claude)/.test(line))
      const before = yield* fallbackWith({ ...env, KEY: "x" }, file, "doctor")
      expect(accounts(before.out)).toEqual([
        "✗ claude@login     not signed in (no ~/.claude/.credentials.json)",
        "    fix: claude  # then /login",
        `✗ claude@work      config dir ${dir}/work holds no sign-in (no .credentials.json in it)`,
        `    fix: CLAUDE_CONFIG_DIR=${dir}/work claude  # then /login`
      ])
      expect(before.out).toContain("✓ claude@key       ANTHROPIC_API_KEY from KEY (set)")
      yield* fs.makeDirectory(`${dir}/.claude`)
      yield* fs.writeFileString(`${dir}/.claude/.credentials.json`, "{}")
      yield* fs.writeFileString(`${dir}/work/.credentials.json`, "{}")
      const after = yield* fallbackWith({ ...env, KEY: "x" }, file, "doctor")
      expect(accounts(after.out)).toEqual([
        "✓ claude@login     signed in (~/.claude/.credentials.json)",
        `✓ claude@work      config dir ${dir}/work, signed in (.credentials.json)`
      ])
      expect(after.ok).toBe(true)
    }).pipe(Effect.provide(NodeFileSystem.layer)))
})
