/**
 * Conformance with the escalating system (reference 002), every number of its page walked on the
 * TestClock: timeouts 3 attempts 15 s apart; rate limit 30 min cooldown and 5, 10, 15 s then
 * switch; quota 30 min cooldown and switch at once; context too long compacts, then trims; a hung
 * stream probed every 30 s, a failed probe retried every 10 s, switching after 3; candidates skip
 * the failed provider and too-small windows, are health-checked within 10 s, over 3 rounds; a
 * pinned session never falls back; the stand-in starts fresh; a send is given 600 s.
 */
import { describe, expect, it } from "@effect/vitest"
import { Scripted } from "@fallback/testkit"
import { Cause, Duration, Effect, Exit, Fiber, Layer, Option, Stream } from "effect"
import { TestClock } from "effect/testing"
import { Agent, Compactor, Failure, Health, Preset, Steps } from "../../src/index.js"
import { a, a2, b, escalating, s, seen, turn } from "./escalating.js"
import { Heard } from "./world.js"

describe("escalating preset (002)", () => {
  it.effect("timeout: up to 3 attempts on the same model, 15 s apart, then the next model", () =>
    Effect.gen(function*() {
      expect(yield* turn()).toEqual(Exit.succeed(`ok from ${b}`))
      expect((yield* seen(a)).at).toEqual([0, 15_000, 30_000])
      expect((yield* seen(b)).at).toEqual([30_000])
      expect((yield* Heard).timed()).toEqual(["0 Retrying", "15000 Retrying", "30000 Moving"])
    }).pipe(Effect.provide(escalating({ script: { places: { [a]: [Scripted.fail("Timeout")] } }, chain: [a, b] }))))

  it.effect("send timeout: an attempt is given 600 s, whose probes keep answering, before it times out", () =>
    Effect.gen(function*() {
      expect(yield* turn()).toEqual(Exit.succeed(`ok from ${b}`))
      expect((yield* seen(a)).at).toEqual([0, 615_000, 1_230_000])
      expect((yield* seen(b)).at).toEqual([1_830_000])
      expect((yield* seen(a)).checks).toBe(60)
    }).pipe(Effect.provide(escalating({ script: { places: { [a]: [Scripted.hang] } }, chain: [a, b] }))))

  // "AgentSendTimeoutSec | limits.agent_send_timeout_seconds in config.json, default 600": a setting.
  it.effect("send timeout: the ceiling is a setting; given 100 s, an attempt times out at 100 s", () =>
    Effect.gen(function*() {
      expect(yield* turn("hello", { send: Option.some(Duration.seconds(100)) })).toEqual(Exit.succeed(`ok from ${b}`))
      expect((yield* seen(a)).at).toEqual([0, 115_000, 230_000])
    }).pipe(Effect.provide(escalating({ script: { places: { [a]: [Scripted.hang] } }, chain: [a, b] }))))

  it.effect("rate limit: a 30-minute cooldown, the same model again after 5 s, 10 s, 15 s, then the next", () =>
    Effect.gen(function*() {
      expect(yield* turn()).toEqual(Exit.succeed(`ok from ${b}`))
      expect((yield* seen(a)).at).toEqual([0, 5_000, 15_000, 30_000])
      expect((yield* seen(b)).at).toEqual([30_000])
      const [entry] = yield* Effect.flatMap(Health.Health, (health) => health.snapshot)
      expect(entry!.coolingUntil).toEqual(Option.some(30_000 + 30 * 60_000))
      // The remedy is the escalating table's: no account chain here, unlike the primary's.
      expect((yield* Heard).lines()[0]).toBe(
        "claude is rate-limited; a wait or another place is what answers it; trying again in 5s (1 of 3)"
      )
      expect((yield* Heard).lines().slice(0, 3).map((line) => line.replace(/^.*; /, ""))).toEqual([
        "trying again in 5s (1 of 3)",
        "trying again in 10s (2 of 3)",
        "trying again in 15s (3 of 3)"
      ])
    }).pipe(Effect.provide(escalating({ script: { places: { [a]: [Scripted.fail("RateLimited")] } }, chain: [a, b] }))))

  it.effect("quota: a 30-minute cooldown and the next model at once; the cooled model is skipped until it ends", () =>
    Effect.gen(function*() {
      expect(yield* turn()).toEqual(Exit.succeed(`ok from ${b}`))
      expect((yield* seen(a)).at).toEqual([0])
      expect((yield* seen(b)).at).toEqual([0])
      const [entry] = yield* Effect.flatMap(Health.Health, (health) => health.snapshot)
      expect(entry!.coolingUntil).toEqual(Option.some(30 * 60_000))
      const again = yield* Agent.make(a, undefined, Preset.escalating.options)
      expect(yield* Agent.ask(again, "after the cooldown")).toBe(`ok from ${a}`)
      expect((yield* seen(a)).at).toEqual([0, 3_600_000])
    }).pipe(Effect.provide(escalating({
      script: { places: { [a]: [Scripted.fail("QuotaExhausted"), Scripted.answer(`ok from ${a}`)] } },
      chain: [a, b]
    }))))

  // "Quota exhausted (HTTP 402 / 403 or a quota / billing message) | Register a 30-minute cooldown and
  // switch to the next fallback immediately"; a 401 is "Any other error | Switch to the next fallback model".
  for (const [status, cooling] of [[401, Option.none()], [403, Option.some(30 * 60_000)]] as const) {
    it.effect(`refused credentials with ${status}: the next model at once, ${status === 401 ? "no cooldown" : "a 30-minute cooldown"}`, () =>
      Effect.gen(function*() {
        expect(yield* turn()).toEqual(Exit.succeed(`ok from ${b}`))
        expect((yield* seen(a)).at).toEqual([0])
        expect((yield* seen(b)).at).toEqual([0])
        const [entry] = yield* Effect.flatMap(Health.Health, (health) => health.snapshot)
        expect(entry!.coolingUntil).toEqual(cooling)
      }).pipe(Effect.provide(escalating({
        script: {
          places: {
            [a]: [
              Scripted.fail((place) => new Failure.AuthRefused({ place, said: Failure.said(`HTTP ${status}`), status }))
            ]
          }
        },
        chain: [a, b]
      }))))
  }

  // "rebuilds the list for up to 3 rounds (maxFallbackRounds)": each round reads the chain again.
  it.effect("the candidate list is rebuilt each round: a step written during a round is what the next round walks", () =>
    Effect.gen(function*() {
      const agent = yield* Agent.make(a, undefined, Preset.escalating.options)
      const fiber = yield* Effect.forkChild(Agent.ask(agent, "hello"))
      yield* TestClock.adjust("5 seconds")
      yield* Effect.orDie((yield* Steps.Steps).points(a, "gemini/c"))
      yield* TestClock.adjust("1 hour")
      expect(yield* Fiber.join(fiber)).toBe("ok from gemini/c")
      expect((yield* seen(b)).checks).toBe(1)
      expect((yield* seen("gemini/c")).at).toEqual([10_000])
    }).pipe(Effect.provide(escalating({
      script: { places: { [a]: [Scripted.fail("Unknown")] }, checks: { [b]: ["hang"] }, clis: ["gemini"] },
      chain: [a, b]
    }))))

  it.effect("context too long: compact and resend; trim the oldest exchange and resend; then a larger window when nothing is left", () =>
    Effect.gen(function*() {
      const agent = yield* Agent.make(a, undefined, Preset.escalating.options)
      for (const prompt of ["1", "2", "3"]) yield* Agent.ask(agent, prompt)
      // issue 25: nothing left to trim at a, the turn moves to b, whose declared window (200k) is larger
      expect(yield* Agent.ask(agent, "4")).toBe(`ok from ${b}`)
      expect((yield* seen(a)).prompts.map((p) => p.history.length)).toEqual([0, 1, 2, 1, 2, 1, 0])
      expect((yield* Heard).notices.map(({ notice }) => notice._tag === "Compacting" ? notice.how : notice._tag))
        .toEqual([
          "compact",
          "trim",
          "trim",
          "Moving"
        ])
      expect((yield* seen(b)).turns).toBe(1)
    }).pipe(
      Effect.provide(escalating({
        script: {
          places: {
            [a]: [
              Scripted.answer("x"),
              Scripted.answer("y"),
              Scripted.fail("ContextTooLong"),
              Scripted.answer("compacted"),
              Scripted.fail("ContextTooLong")
            ]
          }
        },
        chain: [a, b]
      })),
      Effect.provide(Layer.succeed(Compactor.Compactor, {
        compact: (prompt) =>
          Effect.succeed(
            prompt.history.length === 2 && prompt.history[0]!.prompt === "1"
              ? Option.some([{ prompt: "summary", answer: "of 1 and 2" }])
              : Option.none()
          )
      }))
    ))

  it.effect("a hung stream: probed at 30 s, a failed probe retried every 10 s, the model switched after 3 failures", () =>
    Effect.gen(function*() {
      expect(yield* turn()).toEqual(Exit.succeed(`ok from ${b}`))
      expect((yield* seen(b)).at).toEqual([80_000])
      expect((yield* Heard).timed()).toEqual(["60000 Probing", "70000 Probing", "80000 Probing", "80000 Moving"])
      expect((yield* Heard).lines()[0]).toBe("claude has sent nothing for 1m and did not answer a probe (1 of 3)")
    }).pipe(Effect.provide(escalating({
      script: { places: { [a]: [Scripted.hang] }, checks: { [a]: [true, false] } },
      chain: [a, b]
    }))))

  it.effect("a stream that stalls after its first content is probed the same way, and fails with what it delivered", () =>
    Effect.gen(function*() {
      const agent = yield* Agent.make(a, undefined, Preset.escalating.options)
      const delivered: Array<string> = []
      const fiber = yield* Effect.forkChild(
        Stream.runForEach(
          agent.turn("hi"),
          (event) => Effect.sync(() => event._tag === "Text" && delivered.push(event.text))
        )
          .pipe(Effect.exit)
      )
      yield* TestClock.adjust("1 hour")
      const exit = yield* Fiber.join(fiber)
      expect(delivered).toEqual(["part 1 ", "part 2 "])
      expect(exit._tag === "Failure" && Cause.findErrorOption(exit.cause)).toEqual(
        Option.some(
          expect.objectContaining({ _tag: "Cut", failure: expect.objectContaining({ _tag: "Unresponsive" }) })
        )
      )
      expect((yield* Heard).timed()).toEqual(["60000 Probing", "70000 Probing", "80000 Probing"])
      expect((yield* seen(b)).opens).toBe(0)
    }).pipe(Effect.provide(escalating({
      script: { places: { [a]: [Scripted.stall(2)] }, checks: { [a]: [true, false] } },
      chain: [a, b]
    }))))

  it.effect("the 600 s send ceiling holds after the first content too: a slow streamed answer fails as a timeout, not replayed", () =>
    Effect.gen(function*() {
      const agent = yield* Agent.make(a, undefined, Preset.escalating.options)
      // issue 25: a streamed turn; a whole reply has handed nothing over and moves on (WholeReply.test.ts)
      const fiber = yield* Effect.forkChild(Effect.exit(Stream.runDrain(agent.turn("hi"))))
      yield* TestClock.adjust("599999 millis")
      expect(fiber.pollUnsafe()).toBeUndefined()
      yield* TestClock.adjust("1 millis")
      const exit = yield* Fiber.join(fiber)
      expect(exit._tag === "Failure" && Cause.findErrorOption(exit.cause)).toEqual(
        Option.some(expect.objectContaining({
          _tag: "Cut",
          failure: expect.objectContaining({ _tag: "Timeout", phase: "whole-send" })
        }))
      )
      expect((yield* seen(a)).turns).toBe(1)
      expect((yield* seen(b)).opens).toBe(0)
    }).pipe(Effect.provide(escalating({ script: { places: { [a]: [Scripted.stall(1)] } }, chain: [a, b] }))))

  it.effect("candidates: the failed model's provider and a too-small context window are skipped", () =>
    Effect.gen(function*() {
      expect(yield* turn("a prompt of some sixty characters, more than ten tokens long")).toEqual(
        Exit.succeed(`ok from ${b}`)
      )
      expect((yield* seen(a2)).opens + (yield* seen(s)).opens).toBe(0)
      expect((yield* Heard).notices.flatMap(({ notice }) => notice._tag === "Skipping" ? [notice.why] : [])).toEqual([
        "provider",
        "window"
      ])
    }).pipe(
      Effect.provide(escalating({ script: { places: { [a]: [Scripted.fail("Unknown")] } }, chain: [a, a2, s, b] }))
    ))

  it.effect("candidates are health-checked within 10 s before use", () =>
    Effect.gen(function*() {
      expect(yield* turn()).toEqual(Exit.succeed(`ok from ${b}`))
      expect((yield* seen("gemini/c")).checks).toBe(1)
      expect((yield* seen("gemini/c")).turns).toBe(0)
      expect((yield* seen(b)).at).toEqual([10_000])
    }).pipe(Effect.provide(escalating({
      script: { places: { [a]: [Scripted.fail("Unknown")] }, checks: { "gemini/c": ["hang"] } },
      chain: [a, "gemini/c", b]
    }))))

  it.effect("the candidate list is rebuilt for up to 3 rounds", () =>
    Effect.gen(function*() {
      expect(yield* turn()).toEqual(Exit.succeed(`ok from ${b}`))
      expect((yield* seen(b)).checks).toBe(3)
    }).pipe(Effect.provide(escalating({
      script: { places: { [a]: [Scripted.fail("Unknown")] }, checks: { [b]: [false, false, true] } },
      chain: [a, b]
    }))))

  it.effect("after 3 rounds with no healthy candidate the turn aborts", () =>
    Effect.gen(function*() {
      const exit = yield* turn()
      expect(Exit.isFailure(exit)).toBe(true)
      expect((yield* seen(b)).checks).toBe(3)
      expect((yield* seen(b)).turns).toBe(0)
      expect((yield* Heard).lines().at(-1)).toMatch(/the turn fails here: no account or place is left to try$/)
    }).pipe(Effect.provide(escalating({
      script: { places: { [a]: [Scripted.fail("Unknown")] }, checks: { [b]: [false, false, false, true] } },
      chain: [a, b]
    }))))

  it.effect("a session pinned to a model never falls back", () =>
    Effect.gen(function*() {
      const exit = yield* turn("hello", { fallback: false })
      expect(Exit.isFailure(exit)).toBe(true)
      expect((yield* seen(a)).at).toEqual([0, 5_000, 15_000, 30_000])
      expect((yield* seen(b)).opens).toBe(0)
      expect((yield* Heard).lines().at(-1)).toMatch(/the turn fails here: the agent is pinned to its place$/)
    }).pipe(Effect.provide(escalating({ script: { places: { [a]: [Scripted.fail("RateLimited")] } }, chain: [a, b] }))))

  it.effect("switching starts the stand-in fresh: no history, no session carried", () =>
    Effect.gen(function*() {
      const agent = yield* Agent.make(a, undefined, Preset.escalating.options)
      yield* Agent.ask(agent, "one")
      yield* Agent.ask(agent, "two")
      const at = yield* seen(b)
      expect(at.prompts.map((p) => p.history)).toEqual([[]])
      expect(at.resumed).toEqual([undefined])
    }).pipe(Effect.provide(escalating({
      script: { places: { [a]: [Scripted.answer("first"), Scripted.fail("Unknown")] } },
      chain: [a, b]
    }))))
})
