/**
 * The fuzz suite for the command line (issue 12): command lines drawn from the commands, their
 * options and hostile words, run in process against one config file. No run throws or hangs, no
 * message has a stack trace, runs past a bound or holds a control character, and the file always
 * reads back. Seeded (FUZZ_SEED), bounded by counts.
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import { describe, expect, it } from "@effect/vitest"
import { ConfigFile } from "@fallback/core"
import { Arbitrary, Duration, Effect, Option, Result, Schema } from "effect"
import * as FileSystem from "effect/FileSystem"
import { fallback } from "./run.js"

const seed = Number(process.env.FUZZ_SEED ?? 12)

const index = (below: number) =>
  Arbitrary.schema(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: below - 1 })))

const constantFrom = <A>(...values: ReadonlyArray<A>): Arbitrary.Arbitrary<A> =>
  Arbitrary.map(index(values.length), (i) => values[i]!)

const string = (maxLength: number) => Arbitrary.schema(Schema.String.check(Schema.isMaxLength(maxLength)))

/** One of the arbitraries, each as likely as its weight says. */
const weighted = <A>(
  ...choices: ReadonlyArray<{ readonly weight: number; readonly arbitrary: Arbitrary.Arbitrary<A> }>
): Arbitrary.Arbitrary<A> => {
  const slots = choices.flatMap(({ arbitrary, weight }) => Array.from({ length: weight }, () => arbitrary))
  return Arbitrary.flatMap(index(slots.length), (i) => slots[i]!)
}

const word = weighted(
  {
    weight: 6,
    arbitrary: constantFrom(
      "claude/a",
      "codex@key/gpt-5",
      "gemini/--yolo",
      "claude@work/x",
      "opencode/anthropic/claude",
      "claude",
      "--tries",
      "--policy",
      "--timeout",
      "--json",
      "--config-dir",
      "--env",
      "-h",
      "--help",
      "--",
      "-",
      "0",
      "1",
      "-1",
      "3",
      "100",
      "101",
      "100000000",
      "1e999",
      "NaN",
      "90s",
      "1h",
      "99999999999999999999h",
      "0.5",
      "exponential",
      "none",
      "fibonacci",
      "bogus",
      "add",
      "remove",
      "order",
      "work",
      "key",
      "ANTHROPIC_API_KEY=hunter2-prod-key",
      "X=fromEnv:Y",
      "BASE=https://u:p4ssw0rd@h",
      "~/x"
    )
  },
  { weight: 2, arbitrary: string(30) },
  // Schema.String's arbitrary draws from the whole of Unicode
  { weight: 1, arbitrary: string(12) },
  {
    weight: 1,
    arbitrary: constantFrom("\u001b]8;;http://evil\u0007x", "a\u0000b", "x".repeat(100_000), "__proto__")
  }
)

const commandLine = Arbitrary.map(
  Arbitrary.all([
    constantFrom("point", "retry", "clear", "list", "chain", "accounts", "waits", "status"),
    Arbitrary.array(word, { maxLength: 6 })
  ]),
  ([command, words]) => [command, ...words]
)

const stackTrace = /\n\s+at \S|\bat .*\.(?:ts|js|cjs):\d+/

describe("fuzz: the command line", () => {
  it.effect(
    "random command lines: no throw, no hang, one short printable message, a file that reads back",
    () =>
      Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        const file = `${yield* fs.makeTempDirectoryScoped({ prefix: "fallback-fuzz-" })}/config.json`
        const lines = yield* Arbitrary.sampleEffect(commandLine, { count: 150, seed })
        let failed = 0
        for (const argv of lines) {
          const ran = yield* fallback(file, ...argv).pipe(Effect.timeout(Duration.seconds(30)), Effect.option)
          expect(Option.isSome(ran), `hung: fallback ${JSON.stringify(argv)}`).toBe(true)
          const { err, ok } = Option.getOrThrow(ran)
          if (!ok) failed += 1
          const said = `fallback ${JSON.stringify(argv).slice(0, 300)} said ${err.slice(0, 300)}`
          expect(err, said).not.toMatch(stackTrace)
          expect(err.length, said).toBeLessThanOrEqual(2000)
          expect(err, said).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f\u202e]/)
          expect(err, said).not.toContain("hunter2-prod-key")
          expect(err, said).not.toContain("p4ssw0rd")
          if (yield* fs.exists(file)) {
            const text = yield* fs.readFileString(file)
            expect(
              Result.isSuccess(ConfigFile.decode(file, text, ConfigFile.builtinClis)),
              `${said}; the file: ${text.slice(0, 300)}`
            )
              .toBe(true)
            expect(text).not.toContain("hunter2-prod-key")
          }
        }
        console.log(`fuzz: the command line: ${lines.length} tried, ${failed} refused, 0 broke (FUZZ_SEED=${seed})`)
      }).pipe(Effect.provide(NodeFileSystem.layer)),
    120_000
  )
})
