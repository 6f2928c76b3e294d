import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { describe, expect, it } from "@effect/vitest"
import { Failure, Health, Place } from "@fallback/core"
import { Duration, Effect, Option, Result, Schema } from "effect"
import * as FileSystem from "effect/FileSystem"
import * as TestClock from "effect/testing/TestClock"
import { formatTime, parseTime } from "../src/internal/seconds.js"
import { fallback, fallbackWith } from "./run.js"

const configFile = Effect.gen(function*() {
  const fs = yield* FileSystem.FileSystem
  return `${yield* fs.makeTempDirectoryScoped({ prefix: "fallback-cli-" })}/config.json`
}).pipe(Effect.provide(NodeFileSystem.layer))

const read = (file: string) =>
  Effect.flatMap(FileSystem.FileSystem, (fs) => fs.readFileString(file)).pipe(
    Effect.map((text) => JSON.parse(text) as unknown),
    Effect.provide(NodeFileSystem.layer)
  )

describe("fallback (in process)", () => {
  it.effect("point, retry, list, chain and clear write and read the config file", () =>
    Effect.gen(function*() {
      const file = yield* configFile
      expect(yield* fallback(file, "point", "claude/claude-opus-5", "codex/gpt-5.6-sol")).toEqual({
        out: "claude/claude-opus-5 → codex/gpt-5.6-sol",
        err: "",
        ok: true
      })
      yield* fallback(file, "point", "codex/gpt-5.6-sol", "gemini/gemini-3-pro")
      expect(
        (yield* fallback(
          file,
          "retry",
          "claude/claude-opus-5",
          "--tries",
          "3",
          "--policy",
          "exponential",
          "--timeout",
          "90s"
        )).out
      )
        .toBe("claude/claude-opus-5: 3 tries beyond the first, exponential (1s, 2s, 4s), within 1m30s")
      expect(yield* read(file)).toEqual({
        steps: {
          "claude/claude-opus-5": {
            to: "codex/gpt-5.6-sol",
            retrying: { tries: 3, policy: "exponential", timeout: 90 }
          },
          "codex/gpt-5.6-sol": { to: "gemini/gemini-3-pro" }
        },
        accounts: {}
      })
      expect((yield* fallback(file, "list")).out).toBe([
        "PLACE                 TURNS GO TO          TRIES  POLICY       TIMEOUT",
        "claude/claude-opus-5  codex/gpt-5.6-sol    3      exponential  1m30s",
        "codex/gpt-5.6-sol     gemini/gemini-3-pro  -      -            -"
      ].join("\n"))
      expect(JSON.parse((yield* fallback(file, "list", "--json")).out)).toEqual([
        { place: "claude/claude-opus-5", to: "codex/gpt-5.6-sol", tries: 3, policy: "exponential", timeout: 90 },
        { place: "codex/gpt-5.6-sol", to: "gemini/gemini-3-pro", tries: null, policy: null, timeout: null }
      ])
      expect((yield* fallback(file, "chain", "claude/claude-opus-5")).out).toBe(
        "claude/claude-opus-5 → codex/gpt-5.6-sol → gemini/gemini-3-pro"
      )
      expect(JSON.parse((yield* fallback(file, "chain", "claude/claude-opus-5", "--json")).out)).toEqual([
        "claude/claude-opus-5",
        "codex/gpt-5.6-sol",
        "gemini/gemini-3-pro"
      ])
      expect((yield* fallback(file, "clear", "codex/gpt-5.6-sol")).out).toBe("codex/gpt-5.6-sol: cleared")
      expect((yield* fallback(file, "clear", "codex/gpt-5.6-sol")).out).toBe(
        "codex/gpt-5.6-sol: nothing was written against it (to forget its failures: fallback status --clear codex/gpt-5.6-sol)"
      )
      expect((yield* fallback(file, "chain", "claude/claude-opus-5", "--json")).out).toBe(
        "[\"claude/claude-opus-5\",\"codex/gpt-5.6-sol\"]"
      )
    }))

  it.effect("--config names another file than FALLBACK_CONFIG", () =>
    Effect.gen(function*() {
      const [one, other] = [yield* configFile, yield* configFile]
      yield* fallback(one, "point", "claude/opus", "codex/gpt-5", "--config", other)
      expect((yield* fallback(one, "list")).out).toBe("No steps yet. Write one with: fallback point FROM TO")
      expect((yield* fallback(one, "list", "--config", other)).out).toContain("claude/opus  codex/gpt-5")
    }))

  it.effect("accounts: add, list, order, remove, and what is refused", () =>
    Effect.gen(function*() {
      const file = yield* configFile
      expect((yield* fallback(file, "accounts")).out).toBe(
        "No accounts yet. Add one with: fallback accounts add CLI NAME"
      )
      expect((yield* fallback(file, "accounts", "add", "claude", "work", "--config-dir", "/srv/claude-work")).out).toBe(
        "claude: added account work"
      )
      yield* fallback(
        file,
        "accounts",
        "add",
        "claude",
        "key",
        "--env",
        "ANTHROPIC_API_KEY=fromEnv:ANTHROPIC_KEY_2",
        "--env",
        "ANTHROPIC_BASE_URL=http://127.0.0.1:8080"
      )
      expect((yield* fallback(file, "accounts", "claude")).out).toBe([
        "CLI     #  ACCOUNT  CONFIG DIR        ENVIRONMENT",
        "claude  1  work     /srv/claude-work  -",
        "claude  2  key      -                 ANTHROPIC_API_KEY=fromEnv:ANTHROPIC_KEY_2 ANTHROPIC_BASE_URL=http://127.0.0.1:8080"
      ].join("\n"))
      expect((yield* fallback(file, "accounts", "order", "claude", "key", "work")).out).toBe("claude: key → work")
      expect(JSON.parse((yield* fallback(file, "accounts", "--json")).out).map((a: { name: string }) => a.name))
        .toEqual([
          "key",
          "work"
        ])
      const secret = yield* fallback(
        file,
        "accounts",
        "add",
        "claude",
        "leak",
        "--env",
        "ANTHROPIC_API_KEY=sk-ant-api03-abcdefghijklmnopqrstuvw123"
      )
      expect(secret).toEqual({
        out: "",
        err:
          "fallback: --env ANTHROPIC_API_KEY: looks like a secret; keep it in your environment and pass --env ANTHROPIC_API_KEY=fromEnv:YOUR_VARIABLE",
        ok: false
      })
      expect((yield* fallback(file, "accounts", "add", "claude", "odd", "--env", "NOEQUALS")).err).toBe(
        "fallback: --env NOEQUALS: write VAR=fromEnv:OTHER or VAR=value"
      )
      yield* fallback(file, "point", "claude@key/claude-opus-5", "codex/gpt-5")
      const named = yield* fallback(file, "accounts", "remove", "claude", "key")
      expect(named.ok).toBe(false)
      expect(named.err).toBe(
        "fallback: claude: account key is named by the step at claude@key/claude-opus-5; clear it first (fallback clear claude@key/claude-opus-5) or point it elsewhere (fallback point claude@key/claude-opus-5 OTHER-PLACE)"
      )
      expect((yield* fallback(file, "accounts", "remove", "claude", "work")).out).toBe("claude: removed account work")
      expect(JSON.stringify(yield* read(file))).not.toContain("sk-ant")
    }))

  it.effect("status shows each place's breaker, failures in a row and cooldown from the health file", () =>
    Effect.gen(function*() {
      const file = yield* configFile
      expect((yield* fallback(file, "status")).out).toBe("Every place is healthy: no failures recorded.")
      const place = Place.Place.make({ cli: "claude", account: "work", model: "claude-opus-5" })
      const other = Place.Place.make({ cli: "codex", model: "gpt-5" })
      yield* Effect.gen(function*() {
        const health = yield* Health.Health
        const failure = new Failure.Unknown({ place, said: Failure.said("upstream 500") })
        for (let i = 0; i < 5; i++) yield* health.failed(place, { failure, counts: true, coolUntil: Option.none() })
        yield* health.failed(other, {
          failure: new Failure.RateLimited({ place: other, said: Failure.said("429") }),
          counts: true,
          coolUntil: Option.some(90_000)
        })
      }).pipe(
        Effect.provide(Health.Health.layerFile(file.replace(/config\.json$/, "health.json"))),
        Effect.provide(NodeServices.layer)
      )
      yield* TestClock.adjust(Duration.seconds(20))
      expect((yield* fallback(file, "status")).out).toBe([
        "PLACE                      BREAKER  FAILURES IN A ROW  PARKED FOR  COOLING FOR  LAST FAILURE",
        "claude@work/claude-opus-5  parked   5                  40s         -            claude@work failed: upstream 500",
        "codex/gpt-5                closed   1                  -           1m10s        codex is rate-limited"
      ].join("\n"))
      expect(JSON.parse((yield* fallback(file, "status", "--json")).out)[0]).toEqual({
        place: "claude@work/claude-opus-5",
        breaker: "parked",
        failures: 5,
        parkedFor: 40,
        coolingFor: null,
        kind: "Unknown",
        last: "claude@work failed: upstream 500"
      })
    }))

  it.effect("doctor finds each CLI with its version, and says the line that fixes each problem", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const file = yield* configFile
      const bin = `${yield* fs.makeTempDirectoryScoped({ prefix: "fallback-bin-" })}`
      yield* fs.writeFileString(`${bin}/claude`, "#!/bin/sh\necho '2.1.332 (Claude Code)'\n", { mode: 0o755 })
      yield* fs.writeFileString(`${bin}/gemini`, "not a program", { mode: 0o644 })
      yield* fs.writeFileString(
        file,
        JSON.stringify({
          steps: { "claude@work/claude-opus-5": { to: "gemini/gemini-3-pro" } },
          accounts: {
            claude: [{ name: "work", configDir: bin, env: { ANTHROPIC_API_KEY: { fromEnv: "KEY_WORK" } } }],
            gemini: [{ name: "home", configDir: "~/no-such-folder", env: { GEMINI_API_KEY: { fromEnv: "KEY_HOME" } } }]
          }
        })
      )
      const env = { PATH: bin, HOME: bin, KEY_WORK: "sk-ant-api03-this-value-must-never-be-printed" }
      const ran = yield* fallbackWith(env, file, "doctor")
      expect(ran.ok).toBe(false)
      expect(ran.out).toBe([
        `✓ config           ${file}: 1 step, 2 accounts, 0 providers`,
        `✓ claude           2.1.332 (Claude Code) at ${bin}/claude`,
        "✗ gemini           not installed (not on PATH)",
        "    fix: npm install -g @google/gemini-cli",
        "✓ step             claude@work/claude-opus-5 → gemini/gemini-3-pro",
        `✓ claude@work      config dir ${bin}`,
        "✓ claude@work      ANTHROPIC_API_KEY from KEY_WORK (set)",
        "✗ gemini@home      config dir ~/no-such-folder does not exist",
        "    fix: mkdir -p ~/no-such-folder  # then sign gemini in there",
        "✗ gemini@home      GEMINI_API_KEY is taken from KEY_HOME, which is not set",
        "    fix: export KEY_HOME=…  # the value of GEMINI_API_KEY for account home"
      ].join("\n"))
      expect(ran.err).toBe("fallback: 3 problems found; the line that fixes each is above")
      expect(ran.out).not.toContain("never-be-printed")
      const report = JSON.parse((yield* fallbackWith({ ...env, KEY_HOME: "x" }, file, "doctor", "--json")).out)
      expect(
        report.checks.filter((check: { ok: boolean }) => !check.ok).map((check: { subject: string }) => check.subject)
      )
        .toEqual(["gemini", "gemini@home"])
      yield* fs.writeFileString(`${bin}/gemini`, "#!/bin/sh\necho 0.61.0\n")
      yield* fs.chmod(`${bin}/gemini`, 0o755)
      yield* fs.makeDirectory(`${bin}/no-such-folder`)
      expect(yield* fallbackWith({ ...env, KEY_HOME: "x" }, file, "doctor")).toMatchObject({ ok: true, err: "" })
    }).pipe(Effect.provide(NodeFileSystem.layer)))

  it.effect("waits prints every ladder, or one, as a table or JSON", () =>
    Effect.gen(function*() {
      const file = yield* configFile
      expect((yield* fallback(file, "waits", "--tries", "4")).out).toBe([
        "POLICY              WAITS BEFORE THE 2ND, 3RD… TRY (4 TRIES)",
        "none                no wait at all",
        "constant            1s, 1s, 1s, 1s",
        "linear              1s, 2s, 3s, 4s",
        "exponential         1s, 2s, 4s, 8s",
        "exponential-jitter  anywhere up to 1s, 2s, 4s, 8s",
        "fibonacci           1s, 1s, 2s, 3s"
      ].join("\n"))
      expect(JSON.parse((yield* fallback(file, "waits", "--policy", "exponential", "--tries", "8", "--json")).out))
        .toEqual([
          { policy: "exponential", waits: [1, 2, 4, 8, 16, 32, 60, 60], jittered: false }
        ])
    }))

  it.effect("bad input is one readable line and a failure, never a stack trace", () =>
    Effect.gen(function*() {
      const file = yield* configFile
      const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
        [
          ["point", "Claude/a", "codex/b"],
          "fallback: \"Claude/a\" is not a place: the CLI \"Claude\" may hold only lowercase letters, digits and \"-\"; expected CLI[@ACCOUNT]/MODEL (e.g. claude@work/claude-opus-5)"
        ],
        [
          ["point", "claude/a", "claude/a"],
          "fallback: the step at claude/a points at itself; a place cannot fall back to itself"
        ],
        [
          ["retry", "claude/a", "--tries", "3", "--timeout", "soon"],
          "fallback: \"soon\" is not a time; write seconds (90, 90s) or add a unit: 500ms, 2m, 1h, 0 for none"
        ],
        [
          ["retry", "claude/a", "--tries", "-2"],
          "fallback: tries is -2; tries is a whole number of goes beyond the first (0 to 100) and timeout 0 to 86400 seconds"
        ],
        [
          ["point", "claud/a", "codex/b"],
          `fallback: ${file}: claud/a names the CLI "claud", which is not one fallback knows (did you mean claude?); known: claude, codex, gemini, opencode, antigravity`
        ]
      ]
      for (const [args, err] of cases) expect(yield* fallback(file, ...args)).toEqual({ out: "", err, ok: false })
    }))

  it.effect("a config file that does not read is named, and left as it was", () =>
    Effect.gen(function*() {
      const file = yield* configFile
      const fs = yield* FileSystem.FileSystem
      yield* fs.writeFileString(
        file,
        "{\"steps\": {\"claude/a\": {\"retrying\": {\"tries\": 3, \"policy\": \"jitter\"}}}}"
      )
      const ran = yield* fallback(file, "point", "claude/b", "codex/c")
      expect(ran.err).toBe(
        `fallback: ${file} is not a fallback config: at steps["claude/a"].retrying.policy: a policy is one of: none, constant, linear, exponential, exponential-jitter, fibonacci`
      )
      expect(yield* fs.readFileString(file)).toContain("jitter")
    }).pipe(Effect.provide(NodeFileSystem.layer)))

  it.effect("an unknown command or option is one line with the nearest name", () =>
    Effect.gen(function*() {
      const file = yield* configFile
      expect(yield* fallback(file, "frobnicate")).toEqual({
        out: "",
        err: "fallback: frobnicate is not a command; fallback --help lists them",
        ok: false
      })
      expect((yield* fallback(file, "lsit")).err).toBe(
        "fallback: lsit is not a command (did you mean list?); fallback --help lists them"
      )
      expect((yield* fallback(file, "retry", "claude/a", "--tires", "3")).err).toBe(
        "fallback: --tires is not an option of fallback retry (did you mean --tries?); fallback retry --help lists them"
      )
      expect((yield* fallback(file, "accounts", "add", "claude", "a", "--confg-dir", "x")).err).toBe(
        "fallback: --confg-dir is not an option of fallback accounts add (did you mean --config-dir?); fallback accounts add --help lists them"
      )
      expect((yield* fallback(file, "--wizard")).err).toBe(
        "fallback: --wizard is not an option of fallback; fallback --help lists what is"
      )
    }))

  it.prop("times read back what they write", [
    Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 10 * 3_600_000 }))
  ], ([millis]) => {
    const duration = Duration.millis(millis)
    expect(Result.map(parseTime(formatTime(duration)), Duration.toMillis)).toEqual(Result.succeed(millis))
  })

  it.prop(
    "a bare number is seconds",
    [Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 100_000 }))],
    ([seconds]) => {
      expect(Result.map(parseTime(String(seconds)), Duration.toSeconds)).toEqual(Result.succeed(seconds))
    }
  )

  it("refuses what is not a time", () => {
    for (const input of ["", "s", "-1", "1d", "1 m", "ten", "1.5.2s"]) {
      expect(Result.isFailure(parseTime(input))).toBe(true)
    }
  })
})
