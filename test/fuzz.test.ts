/**
 * The fuzz suite through the real bin (issue 12): a few random command lines run as a user runs
 * them. Each ends with 0 or 1 (no crash, no signal), no stack trace, a short printable stderr, and a
 * config file that reads back. Seeded (FUZZ_SEED), bounded by counts; the many more in-process runs
 * are in packages/cli/test/Fuzz.test.ts.
 */
import { describe, expect, it } from "@effect/vitest"
import { ConfigFile } from "@fallback/core"
import { Arbitrary, Effect, Result, Schema } from "effect"
import { existsSync, mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { runBin } from "./support/bin.js"

const seed = Number(process.env.FUZZ_SEED ?? 12)

const word = Arbitrary.schema(Schema.Union([
  Schema.Literals([
    "claude/a",
    "gemini/--yolo",
    "--tries",
    "100000000",
    "--timeout",
    "1e999",
    "--policy",
    "bogus",
    "--json",
    "\u001b]8;;http://evil\u0007x",
    "x".repeat(50_000),
    "ANTHROPIC_API_KEY=hunter2-prod-key",
    "--env",
    "add"
  ]),
  Schema.String.check(Schema.isMaxLength(20))
]))

describe("fuzz: the real bin", () => {
  it("random command lines end cleanly", async () => {
    const dir = mkdtempSync(join(tmpdir(), "fallback-fuzz-bin-"))
    const config = join(dir, "config.json")
    const lines = Effect.runSync(Arbitrary.sampleEffect(
      Arbitrary.all([
        Arbitrary.schema(Schema.Literals(["point", "retry", "waits", "accounts", "list", "chain", "status", "run"])),
        Arbitrary.array(word, { maxLength: 4 })
      ]),
      { count: 12, seed }
    ))
    let refused = 0
    for (const [command, words] of lines) {
      // run gets a place that is not set up, so it never starts a turn
      const argv = command === "run" ? ["run", "nowhere/m", ...words] : [command, ...words]
      // an argument cannot hold a NUL byte; stdin can
      const ran = await runBin(config, {}, argv, { input: "a\u0000b" })
      const said = `fallback ${JSON.stringify(argv).slice(0, 200)}: ${ran.err.slice(0, 300)}`
      expect([0, 1, 17], said).toContain(ran.code)
      if (ran.code !== 0) refused += 1
      expect(ran.err, said).not.toMatch(/\n\s+at \S/)
      expect(ran.err.length, said).toBeLessThanOrEqual(2000)
      expect(ran.err, said).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/)
      expect(`${ran.out}${ran.err}`, said).not.toContain("hunter2-prod-key")
      if (existsSync(config)) {
        expect(Result.isSuccess(ConfigFile.decode(config, readFileSync(config, "utf8"), ConfigFile.builtinClis)), said)
          .toBe(true)
      }
    }
    console.log(`fuzz: the real bin: ${lines.length} tried, ${refused} refused, 0 broke (FUZZ_SEED=${seed})`)
  }, 120_000)
})
