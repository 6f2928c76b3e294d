/**
 * Names that become paths (issue 23): an account's name and a conversation ID given to
 * `--session` are refused before they reach the file system or a CLI when they could not be a
 * safe folder or file name.
 */
import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, Effect, Schema } from "effect"
import { existsSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { sessionProblem } from "../src/internal/run.js"
import { fallback } from "./run.js"

/** A config whose claude leaves a mark when it is started at all. */
const marking = () => {
  const dir = mkdtempSync(path.join(tmpdir(), "fallback-names-"))
  const bin = path.join(dir, "claude")
  writeFileSync(
    bin,
    `#!${process.execPath}\nrequire("node:fs").writeFileSync(${JSON.stringify(`${dir}/started`)}, "")\n`,
    {
      mode: 0o755
    }
  )
  const config = path.join(dir, "config.json")
  writeFileSync(config, JSON.stringify({ clis: { claude: { bin } } }))
  return { config, started: () => existsSync(path.join(dir, "started")) }
}

describe("names that become paths", () => {
  it.each([
    "0b7c4a52-1c1e-4a4e-9d5f-3c2b1a0f9e8d",
    "ses_4f2a9c0b1d3e",
    "019a1b2c-3d4e-7f60-8a9b-0c1d2e3f4a5b",
    "s-1",
    "latest"
  ])("takes the conversation ID %j, as a CLI prints them", (id) => {
    expect(sessionProblem(id)).toBeUndefined()
  })

  it.each(["../../etc/passwd", "..", "a/b", "a\\b", "-rf", ".hidden", "a..b", "a b", "a\u0000b", "x".repeat(129)])(
    "refuses the conversation ID %j, naming the rule",
    (id) => {
      expect(sessionProblem(id)).toMatch(/a conversation ID starts with a letter or a digit and holds up to 128/)
    }
  )

  it.prop("a conversation ID taken from any string holds no separator and names a file inside its folder", [
    Arbitrary.flatMap(
      Arbitrary.schema(Schema.Boolean),
      (plain) =>
        plain
          ? Arbitrary.schema(Schema.String.check(Schema.isMaxLength(140)))
          : Arbitrary.schema(Schema.String.check(Schema.isPattern(/^[a-z0-9./\\_-]{1,20}$/)))
    )
  ], ([id]) => {
    if (sessionProblem(id) !== undefined) return
    expect(id).not.toMatch(/[/\\\u0000-\u001f]/)
    const folder = path.resolve("/sessions")
    expect(path.dirname(path.resolve(folder, `${id}.jsonl`))).toBe(folder)
  })

  it.effect("fallback run --session ../../etc/passwd is refused before its CLI starts", () =>
    Effect.gen(function*() {
      const { config, started } = marking()
      const ran = yield* fallback(config, "run", "--session", "../../etc/passwd", "claude/claude-sonnet-4-5", "hi")
      expect(ran.ok).toBe(false)
      expect(ran.err).toContain("--session \"../../etc/passwd\": a conversation ID starts with a letter or a digit")
      expect(started()).toBe(false)
    }))

  it.effect("fallback accounts add refuses an account named .., or 3,000 characters long", () =>
    Effect.gen(function*() {
      const { config } = marking()
      const dots = yield* fallback(config, "accounts", "add", "claude", "..")
      expect(dots.ok).toBe(false)
      expect(dots.err).toContain("must start with a letter or a digit")
      const long = yield* fallback(config, "accounts", "add", "claude", "a".repeat(3000))
      expect(long.ok).toBe(false)
      expect(long.err).toContain("is 3000 characters long; an account is at most 64")
      const place = yield* fallback(config, "run", "claude@../claude-sonnet-4-5", "hi")
      expect(place.err).toContain("must start with a letter or a digit")
    }))
})
