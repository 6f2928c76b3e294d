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

const configFile = () => {
  const file = join(mkdtempSync(join(tmpdir(), "fallback-breaker-")), "config.json")
  writeFileSync(
    file,
    JSON.stringify({
      providers: {
        // Nothing listens there: a run that got as far as a request would fail another way.
        local: { kind: "openai-compatible", baseUrl: "http://127.0.0.1:9/v1", models: [{ name: "m1" }, { name: "m2" }] }
      }
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
})
