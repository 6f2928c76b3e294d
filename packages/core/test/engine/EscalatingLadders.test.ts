/**
 * Conformance with the escalating system (reference 002), continued: the rate-limit ladder against
 * a Retry-After, timeouts of every phase, the watchdog's switches, and the budget that covers the
 * longest chain 002 allows.
 */
import { describe, expect, it } from "@effect/vitest"
import { Scripted } from "@fallback/testkit"
import { Arbitrary, Duration, Effect, Exit, Fiber, Option } from "effect"
import { TestClock } from "effect/testing"
import type { Answer } from "../../src/index.js"
import { Agent, Failure, Health, Preset } from "../../src/index.js"
import { a, b, escalating, seen, turn } from "./escalating.js"
import { anyOf, Heard } from "./world.js"

describe("escalating preset (002)", () => {
  // 002, "Rate limit | Register a 30-minute cooldown, retry the same model after 5 s, 10 s, then 15 s;
  // then switch to the next fallback": the ladder is 002's, whatever a Retry-After asks for. One
  // longer than the next wait leaves the cooldown to keep the model out and switches at once.
  const asking = (seconds: number) => (place: Parameters<typeof Failure.RateLimited.make>[0]["place"]) =>
    new Failure.RateLimited({ place, said: Failure.said("HTTP 429"), retryAfter: Duration.seconds(seconds) })
  for (
    const [name, script, atA, atB] of [
      ["a Retry-After of 60 s, longer than the 5 s wait, switches at once", [asking(60)], [0], [0]],
      ["a Retry-After of 8 s, longer than the 5 s wait, switches at once", [asking(8)], [0], [0]],
      [
        "a Retry-After of 12 s after the first retry, longer than the 10 s wait, switches then",
        [Scripted.fail("RateLimited"), asking(12)],
        [0, 5_000],
        [5_000]
      ],
      [
        "a Retry-After of 3 s, shorter than each wait, keeps the 5/10/15 s ladder",
        [asking(3)],
        [0, 5_000, 15_000, 30_000],
        [30_000]
      ]
    ] as const
  ) {
    it.effect(`rate limit: ${name}`, () =>
      Effect.gen(function*() {
        expect(yield* turn()).toEqual(Exit.succeed(`ok from ${b}`))
        expect((yield* seen(a)).at).toEqual(atA)
        expect((yield* seen(b)).at).toEqual(atB)
        const [entry] = yield* Effect.flatMap(Health.Health, (health) => health.snapshot)
        expect(entry!.coolingUntil).toEqual(Option.some(atB[0]! + 30 * 60_000))
      }).pipe(Effect.provide(escalating({
        script: {
          places: { [a]: script.map((outcome) => typeof outcome === "function" ? Scripted.fail(outcome) : outcome) }
        },
        chain: [a, b]
      }))))
  }

  // 002, "Timeout | Up to MaxSendTimeoutRetries (3) attempts on the same model, spaced by
  // SendTimeoutRetryInterval (15 s)": a provider's or CLI's own timeout (HTTP 408, ETIMEDOUT, "timed
  // out") is a Timeout, in whichever phase it came, and takes that rule, not the watchdog's switch.
  for (const phase of Failure.Phase.literals) {
    for (const said of ["HTTP 408 Request Timeout", "connect ETIMEDOUT 127.0.0.1:443", "the request timed out"]) {
      it.effect(`timeout: a ${phase} Timeout the provider reported ("${said}") takes 3 attempts 15 s apart`, () =>
        Effect.gen(function*() {
          expect(yield* turn()).toEqual(Exit.succeed(`ok from ${b}`))
          expect((yield* seen(a)).at).toEqual([0, 15_000, 30_000])
          expect((yield* seen(b)).at).toEqual([30_000])
        }).pipe(Effect.provide(escalating({
          script: {
            places: {
              [a]: [
                Scripted.fail((place) =>
                  new Failure.Timeout({ place, said: Failure.said(said), phase, after: Duration.seconds(1) })
                )
              ]
            }
          },
          chain: [a, b]
        }))))
    }
  }

  // 002, "Timeout | Up to MaxSendTimeoutRetries (3) attempts on the same model" and "Rate limit | … retry
  // the same model after 5 s, 10 s, then 15 s": each kind's goes are counted on their own, so a model
  // that alternates them is still left at its third timeout, not tried without end.
  it.effect("timeouts and rate limits in turn: each counted on its own, the model left at its third timeout", () =>
    Effect.gen(function*() {
      expect(yield* turn()).toEqual(Exit.succeed(`ok from ${b}`))
      expect((yield* seen(a)).at).toEqual([0, 15_000, 20_000, 35_000, 45_000])
      expect((yield* seen(b)).at).toEqual([45_000])
    }).pipe(Effect.provide(escalating({
      script: {
        places: {
          [a]: [
            Scripted.fail("Timeout"),
            Scripted.fail("RateLimited"),
            Scripted.fail("Timeout"),
            Scripted.fail("RateLimited"),
            Scripted.fail("Timeout")
          ]
        }
      },
      chain: [a, b]
    }))))

  // 002, "No response while streaming | Health-probe every 30 s, retry a failed probe every 10 s,
  // switch model after 3 failures": a whole reply has handed its caller nothing, so a stream that
  // stops after its first token is switched as one that never started; a reply that shows nothing
  // until it ends (an HTTP provider's) is probed from its start.
  for (
    const [name, whole, outcome] of [
      ["a whole reply read from a stream that stops after its first token", false, Scripted.stall(2)],
      ["a whole reply that stops after its first token", true, Scripted.stall(2)],
      ["a whole reply that never answers", true, Scripted.hang]
    ] as const
  ) {
    it.effect(`the watchdog switches ${name}: probes at 30 s, 60 s, 70 s, 80 s, then the next model`, () =>
      Effect.gen(function*() {
        expect(yield* turn()).toEqual(Exit.succeed(`ok from ${b}`))
        expect((yield* seen(a)).turns).toBe(1)
        expect((yield* seen(a)).checks).toBe(4)
        expect((yield* seen(b)).at).toEqual([80_000])
        expect((yield* Heard).timed()).toEqual(["60000 Probing", "70000 Probing", "80000 Probing", "80000 Moving"])
      }).pipe(Effect.provide(escalating({
        script: { places: { [a]: [outcome] }, checks: { [a]: [true, false] }, whole },
        chain: [a, b]
      }))))
  }

  // The longest a place can hold a turn under 002's numbers: every kind that retries here spends
  // its goes (each kind counted on its own, as 002's counters are), and each go runs to the send
  // ceiling; a place after the first is health-checked in each round.
  const longestAt = (options: Agent.Options) => {
    const ceiling = Duration.toMillis(Option.getOrThrow(options.send))
    const retrying = new Set(Object.values(options.answers).filter((answer: Answer.Answer) => answer.here.length > 0))
    const waits = [...retrying].flatMap((answer) => answer.here.map(Duration.toMillis))
    const requests = 1 + waits.length
    return { requests, millis: requests * ceiling + waits.reduce((sum, wait) => sum + wait, 0) }
  }
  const longestChain = (options: Agent.Options, places: number) => {
    const at = longestAt(options)
    const checks = (places - 1) * options.candidates.rounds *
      Duration.toMillis(Option.getOrThrow(options.candidates.check))
    return { requests: places * at.requests, millis: places * at.millis + checks }
  }

  it("the budget covers the longest chain 002 allows, however many places it has", () => {
    const o = Preset.escalating.options
    // A timeout's 3 goes and a rate limit's 4 at one place: 6 requests, 6 × 600 s + 15 + 15 + 5 + 10 + 15 s.
    expect(longestAt(o)).toEqual({ requests: 6, millis: 3_660_000 })
    for (let places = 1; places <= 50; places++) {
      const longest = longestChain(o, places)
      expect(Duration.toMillis(o.budget.deadline)).toBeGreaterThanOrEqual(longest.millis)
      expect(o.budget.attempts).toBeGreaterThanOrEqual(longest.requests)
    }
  })

  // "two hanging places needing 1,830 s each ran past" the old 1 h budget.
  it.effect("two hanging places take 1,830 s each, and the third answers at 3,660 s", () =>
    Effect.gen(function*() {
      const agent = yield* Agent.make(a, undefined, Preset.escalating.options)
      const fiber = yield* Effect.forkChild(Effect.exit(Agent.ask(agent, "hello")))
      yield* TestClock.adjust("2 hours")
      expect(yield* Fiber.join(fiber)).toEqual(Exit.succeed(`ok from ${b}`))
      expect((yield* seen(a)).at).toEqual([0, 615_000, 1_230_000])
      expect((yield* seen("opencode/o")).at).toEqual([1_830_000, 2_445_000, 3_060_000])
      expect((yield* seen(b)).at).toEqual([3_660_000])
    }).pipe(Effect.provide(escalating({
      script: { places: { [a]: [Scripted.hang], "opencode/o": [Scripted.hang] } },
      chain: [a, "opencode/o", b]
    }))))

  const failing = anyOf(
    ...[
      Scripted.hang,
      Scripted.fail("Timeout"),
      Scripted.fail("RateLimited"),
      Scripted.delay("599 seconds", Scripted.fail("RateLimited"))
    ].map((outcome) => Arbitrary.Constant(outcome))
  )
  const elsewhere = ["opencode/o", "gemini/g", "antigravity/x"]

  it.effect.prop(
    "any chain of failing places lands at its last, within the longest chain 002 allows, never cut by the budget",
    [Arbitrary.array(Arbitrary.array(failing, { minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 3 })],
    ([scripts]) => {
      const chain = [a, ...elsewhere.slice(0, scripts.length - 1), b]
      const failingPlaces = chain.slice(0, -1)
      return Effect.gen(function*() {
        const agent = yield* Agent.make(a, undefined, Preset.escalating.options)
        const fiber = yield* Effect.forkChild(Effect.exit(Agent.ask(agent, "hello")))
        yield* TestClock.adjust("10 hours")
        expect(yield* Fiber.join(fiber)).toEqual(Exit.succeed(`ok from ${b}`))
        const longest = longestChain(Preset.escalating.options, chain.length)
        const [landed] = (yield* seen(b)).at
        expect(landed).toBeLessThanOrEqual(longest.millis)
        for (const place of failingPlaces) {
          expect((yield* seen(place)).turns).toBeLessThanOrEqual(longestAt(Preset.escalating.options).requests)
        }
      }).pipe(
        Effect.scoped,
        Effect.provide(escalating({
          script: { places: Object.fromEntries(failingPlaces.map((place, i) => [place, scripts[i]!])) },
          chain
        }))
      )
    },
    { arbitrary: { runs: 8 } }
  )

  it("its numbers", () => {
    const o = Preset.escalating.options
    expect(Option.map(o.send, Duration.toSeconds)).toEqual(Option.some(600))
    expect(
      Option.map(
        o.watchdog,
        (w) => [Duration.toSeconds(w.every), Duration.toSeconds(w.retry), w.failures, Duration.toSeconds(w.within)]
      )
    )
      .toEqual(Option.some([30, 10, 3, 10]))
    expect([o.candidates.rounds, Option.map(o.candidates.check, Duration.toSeconds)]).toEqual([3, Option.some(10)])
  })
})
