/**
 * `fallback run --preset breaker` reads LLM_FALLBACK_MODELS at start (003: "Every name is checked
 * against the models your configured providers actually serve, so a typo fails startup rather
 * than surfacing during an outage").
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fallbackWith } from "./run.js"

const configFile = (clis: Record<string, unknown> = {}) => {
  const file = join(mkdtempSync(join(tmpdir(), "fallback-breaker-")), "config.json")
  writeFileSync(
    file,
    JSON.stringify({
      providers: {
        // Nothing listens there: a run that got as far as a request would fail another way.
        local: { kind: "openai-compatible", baseUrl: "http://127.0.0.1:9/v1", models: [{ name: "m1" }, { name: "m2" }] }
      },
      clis
    })
  )
  return file
}

describe("fallback run --preset breaker", () => {
  it.effect("a typo in LLM_FALLBACK_MODELS fails start with the variable's own error", () =>
    Effect.gen(function*() {
      const ran = yield* fallbackWith(
        { LLM_FALLBACK_MODELS: "m2,m3" },
        configFile(),
        "run",
        "--preset",
        "breaker",
        "local/m1",
        "hi"
      )
      expect(ran.ok).toBe(false)
      expect(ran.err).toContain("LLM_FALLBACK_MODELS")
      expect(ran.err).toContain("m3")
    }))

  it.effect("a model listed twice fails start too", () =>
    Effect.gen(function*() {
      const ran = yield* fallbackWith(
        { LLM_FALLBACK_MODELS: "m2,m2" },
        configFile(),
        "run",
        "--preset",
        "breaker",
        "local/m1",
        "hi"
      )
      expect(ran.ok).toBe(false)
      expect(ran.err).toContain("LLM_FALLBACK_MODELS")
    }))

  // README: "a typo fails at start with the nearest names"; the catalogue holds the agent CLIs' models too
  it.effect("LLM_FALLBACK_MODELS may name a claude or codex model, and a typo of one gets the nearest names", () =>
    Effect.gen(function*() {
      const typo = yield* fallbackWith(
        { LLM_FALLBACK_MODELS: "m2,claude-sonet-5" },
        configFile(),
        "run",
        "--preset",
        "breaker",
        "local/m1",
        "hi"
      )
      expect(typo.ok).toBe(false)
      expect(typo.err).toContain(
        "fallback: LLM_FALLBACK_MODELS names \"claude-sonet-5\", which no configured backend serves (did you mean claude-sonnet-5 or"
      )
      // binaries that are not there: no real CLI is run
      const absent = { claude: { bin: "/nonexistent/claude" }, codex: { bin: "/nonexistent/codex" } }
      const named = yield* fallbackWith(
        { LLM_FALLBACK_MODELS: "m2,claude-sonnet-5,gpt-5.5" },
        configFile(absent),
        "run",
        "--preset",
        "breaker",
        "local/m1",
        "hi"
      )
      // it starts, and walks to them: local's connection is refused, then claude and codex are tried
      expect(named.err).not.toContain("LLM_FALLBACK_MODELS")
      expect(named.err).toContain("carrying on at claude/claude-sonnet-5\n")
      expect(named.err).toContain("carrying on at codex/gpt-5.5\n")
    }))
})
