/**
 * `fallback run` and `fallback point` take only places the config knows (issue 22: "`run` takes
 * only places the config knows"): one rule for a place's CLI and account (ConfigFile.checkPlace),
 * and at `point` its model checked against what the place serves (a provider's `models`, a CLI's
 * catalogue), refused with the nearest names.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fallback } from "./run.js"

/** A config whose claude is a fake CLI that leaves a mark when it is run, and fails. */
const world = (extra: Record<string, unknown> = {}) => {
  const folder = mkdtempSync(join(tmpdir(), "fallback-places-"))
  const mark = join(folder, "claude-ran")
  const bin = join(folder, "claude")
  writeFileSync(bin, `#!/bin/sh\necho "$@" >> '${mark}'\nexit 1\n`)
  chmodSync(bin, 0o755)
  const file = join(folder, "config.json")
  writeFileSync(
    file,
    JSON.stringify({
      accounts: { claude: [{ name: "work" }, { name: "home" }] },
      clis: { claude: { bin } },
      providers: {
        local: {
          kind: "openai-compatible",
          baseUrl: "http://127.0.0.1:9/v1",
          models: [{ name: "qwen3:8b" }, { name: "qwen3:14b" }]
        },
        open: { kind: "openai-compatible", baseUrl: "http://127.0.0.1:9/v1" }
      },
      ...extra
    })
  )
  return { file, ran: () => existsSync(mark) }
}

describe("fallback run takes only places the config knows", () => {
  it.effect("an account typo is refused with the account it is near, before any CLI is run", () =>
    Effect.gen(function*() {
      const { file, ran } = world()
      const refused = yield* fallback(file, "run", "claude@wrk/claude-opus-5", "hi")
      expect(refused.ok).toBe(false)
      expect(refused.err).toBe(
        `fallback: ${file}: claude@wrk/claude-opus-5 names the account "wrk", which is not set up for claude ` +
          `(it has work, home; did you mean work?); add it with: fallback accounts add claude wrk`
      )
      expect(ran()).toBe(false)
      // the same place with its account spelt right reaches the CLI
      yield* fallback(file, "run", "claude@work/claude-opus-5", "hi")
      expect(ran()).toBe(true)
    }))

  it.effect("point refuses the same typo with the same words", () =>
    Effect.gen(function*() {
      const { file } = world()
      const run = yield* fallback(file, "run", "claude@wrk/claude-opus-5", "hi")
      const point = yield* fallback(file, "point", "claude@wrk/claude-opus-5", "codex/gpt-5.5")
      expect(point.ok).toBe(false)
      expect(point.err).toBe(run.err)
    }))

  it.effect("a CLI that is neither an agent CLI nor a provider is refused, the nearest named", () =>
    Effect.gen(function*() {
      const { file, ran } = world()
      const refused = yield* fallback(file, "run", "clade/claude-opus-5", "hi")
      expect(refused.ok).toBe(false)
      expect(refused.err).toContain("clade/claude-opus-5 names the CLI \"clade\", which is not one fallback knows")
      expect(refused.err).toContain("did you mean claude?")
      expect(refused.err).toContain("known: claude, codex, gemini, opencode, antigravity, local, open")
      expect(ran()).toBe(false)
    }))
})

describe("fallback point checks a model against what its place serves", () => {
  it.effect("a provider's models: one it does not list is refused, one it lists is written", () =>
    Effect.gen(function*() {
      const { file } = world()
      const refused = yield* fallback(file, "point", "local/qwen3:8b", "local/no-such-model")
      expect(refused).toEqual({
        out: "",
        err:
          "fallback: local/no-such-model names the model \"no-such-model\", which local does not serve; it serves qwen3:8b, qwen3:14b; if it runs that model all the same, add it to providers.local.models",
        ok: false
      })
      expect(JSON.parse(readFileSync(file, "utf8")).steps).toBeUndefined()
      expect((yield* fallback(file, "point", "local/qwen3:8b", "local/qwen3:14")).err).toContain(
        "(did you mean qwen3:14b or qwen3:8b?)"
      )
      expect((yield* fallback(file, "point", "local/qwen3:8b", "local/qwen3:14b")).ok).toBe(true)
    }))

  it.effect("a provider with no models listed takes any model, and nothing is said about it", () =>
    Effect.gen(function*() {
      const { file } = world()
      expect(yield* fallback(file, "point", "open/anything", "local/qwen3:8b")).toEqual({
        out: "open/anything → local/qwen3:8b",
        err: "",
        ok: true
      })
    }))

  it.effect("a CLI's catalogue: a typo gets the nearest names, opencode's form is hinted", () =>
    Effect.gen(function*() {
      const { file } = world()
      const codex = yield* fallback(file, "point", "claude@work/claude-opus-5", "codex/gpt-5.6-sool")
      expect(codex.ok).toBe(false)
      expect(codex.err).toContain("codex/gpt-5.6-sool names the model \"gpt-5.6-sool\", which codex does not serve")
      expect(codex.err).toContain("(did you mean gpt-5.6-sol?)")
      expect(codex.err).toContain("add it to clis.codex.models")
      const from = yield* fallback(file, "point", "claude/claude-opus5", "codex/gpt-5.6-sol")
      expect(from.err).toContain("(did you mean claude-opus-5")
      const opencode = yield* fallback(file, "point", "codex/gpt-5.5", "opencode/claude-sonnet-4-5")
      expect(opencode.err).toContain("(did you mean anthropic/claude-sonnet-4-5?)")
      expect((yield* fallback(file, "point", "codex/gpt-5.5", "opencode/anthropic/claude-sonnet-4-5")).ok).toBe(true)
    }))

  it.effect("a model the config adds under clis.NAME.models, or a CLI sent to an endpoint, is taken", () =>
    Effect.gen(function*() {
      const { file } = world({
        clis: { claude: { models: ["claude-next"] }, gemini: { endpoint: { baseUrl: "http://127.0.0.1:9/v1" } } }
      })
      expect((yield* fallback(file, "point", "claude/claude-next", "gemini/mock-model")).ok).toBe(true)
      expect((yield* fallback(file, "point", "claude/claude-next", "codex/mock-model")).ok).toBe(false)
    }))
})
