/**
 * The command line against hostile input (issue 12 #3, #4, #8, #16): each test failed before its fix.
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, Effect, Schema } from "effect"
import { Duration } from "effect"
import * as FileSystem from "effect/FileSystem"
import { spawnSync } from "node:child_process"
import { shellWord } from "../src/internal/doctor.js"
import { formatTime } from "../src/internal/seconds.js"
import { fallback, fallbackWith } from "./run.js"

const configFile = Effect.gen(function*() {
  const fs = yield* FileSystem.FileSystem
  return `${yield* fs.makeTempDirectoryScoped({ prefix: "fallback-hard-" })}/config.json`
}).pipe(Effect.provide(NodeFileSystem.layer))

describe("the command line, bounded", () => {
  it.effect("retry and waits refuse huge tries at once instead of computing them (#3)", () =>
    Effect.gen(function*() {
      const file = yield* configFile
      const retry = yield* fallback(file, "retry", "claude/a", "--tries", "100000000")
      expect(retry.ok).toBe(false)
      expect(retry.err).toContain("tries is 100000000")
      const waits = yield* fallback(file, "waits", "--tries", "3000000")
      expect(waits.ok).toBe(false)
      expect(waits.err).toContain("0 to 100")
    }))

  it.effect("a huge --timeout is refused, and the file stays readable (#4)", () =>
    Effect.gen(function*() {
      const file = yield* configFile
      const ran = yield* fallback(file, "retry", "claude/a", "--tries", "1", "--timeout", `${"9".repeat(400)}h`)
      expect(ran.ok).toBe(false)
      expect((yield* fallback(file, "list")).ok).toBe(true)
    }))
})

describe("doctor's fix lines (#8)", () => {
  it.effect("quote config values as a shell needs", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const file = yield* configFile
      yield* fs.writeFileString(
        file,
        JSON.stringify({
          accounts: { claude: [{ name: "work", configDir: "x; touch owned-by-doctor #" }] }
        })
      )
      const ran = yield* fallbackWith({ PATH: "/nonexistent", HOME: "/tmp" }, file, "doctor")
      expect(ran.out).toContain("fix: mkdir -p 'x; touch owned-by-doctor #'  # then sign claude in there")
    }).pipe(Effect.provide(NodeFileSystem.layer)))

  it.prop(
    "a quoted word reads back unchanged through sh",
    // text as a shell passes it: no unpaired surrogate (fast-check's strings, which v3 drew from, had none)
    [Arbitrary.filter(
      Arbitrary.schema(Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(30))),
      (word) => /^(?:[^\ud800-\udfff]|[\ud800-\udbff][\udc00-\udfff])*$/.test(word)
    )],
    ([word]) => {
      const clean = word.replaceAll("\u0000", "")
      if (clean === "") return
      const echoed = spawnSync("/bin/sh", ["-c", `printf %s ${shellWord(clean)}`], { encoding: "utf8" })
      expect(echoed.stdout).toBe(clean)
    },
    { arbitrary: { runs: 40, seed: 12 } }
  )
})

describe("status and run on what they cannot show (#15, #16)", () => {
  const stored = (until: string) =>
    `{"places":[{"place":"codex/gpt-5","failures":1,"trial":false,"coolingUntil":${until},"parkedUntil":${until},` +
    `"last":{"_tag":"Unknown","place":{"cli":"codex","model":"gpt-5"},"said":"x"}}]}`

  it.effect.each(["1e999", "1e300"])(
    "a health file with a time of %s is one no command trips on",
    (until) =>
      Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        const file = yield* configFile
        yield* fs.writeFileString(file.replace(/config\.json$/, "health.json"), stored(until))
        const ran = yield* fallback(file, "status")
        expect(ran.ok).toBe(true)
        expect(ran.out).not.toContain("Infinity")
        expect(ran.out).not.toContain("NaN")
      }).pipe(Effect.provide(NodeFileSystem.layer))
  )

  it("a time with no end is written in words, never Infinityms", () => {
    expect(formatTime(Duration.infinity)).toBe("until cleared")
  })

  it.effect("a prompt with a NUL byte is one line saying so", () =>
    Effect.gen(function*() {
      const file = yield* configFile
      const ran = yield* fallback(file, "run", "claude/claude-sonnet-4-5", "a\u0000b")
      expect(ran).toMatchObject({ ok: false, out: "" })
      expect(ran.err).toBe(
        "fallback: the prompt holds a NUL byte (\\u0000), which no agent CLI can be given; remove it"
      )
    }))
})
