/**
 * What no retry fixes, through the engine on the TestClock (issue 22): a CLI refusing the
 * arguments fallback gave it, a prompt refused by content policy, a provider's own timeout; and
 * what one run learnt (a refused account, a retired model) remembered by the next agent through
 * the health they share.
 */
import { describe, expect, it } from "@effect/vitest"
import { Scripted } from "@fallback/testkit"
import { Duration, Effect, Exit, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { Agent, Failure, Health, Notice, Preset } from "../../src/index.js"
import { failedWith, Heard, world } from "./world.js"

const work = "claude@work/opus"
const home = "claude@home/opus"
const codex = "codex/gpt"

const presets = [Preset.primary, Preset.escalating, Preset.breaker] as const

const setup = (preset: Preset.Preset, places: Scripted.Script["places"]) =>
  world({
    script: { places },
    chain: [work, codex],
    accounts: { claude: ["work", "home"] },
    breaker: preset.breaker
  })

/** One turn at `work` on the TestClock, given an hour: how it ended. */
const turn = (preset: Preset.Preset, prompt = "hello") =>
  Effect.gen(function*() {
    const agent = yield* Agent.make(work, undefined, preset.options)
    const fiber = yield* Effect.forkChild(Agent.ask(agent, prompt))
    yield* TestClock.adjust("1 hour")
    return yield* Fiber.await(fiber)
  })

const refusedArguments = Scripted.fail((place) =>
  new Failure.ArgumentsRefused({
    place,
    argument: "--permission-mode yolo",
    said: Failure.said("error: option '--permission-mode <mode>' argument 'yolo' is invalid.")
  })
)

describe("arguments the CLI refused", () => {
  for (const preset of presets) {
    it.effect(`${preset.name}: one request, no retry, no other account or place, the CLI's words said`, () =>
      Effect.gen(function*() {
        const exit = yield* turn(preset)
        expect(failedWith(exit)).toMatchObject({
          _tag: "ArgumentsRefused",
          argument: "--permission-mode yolo"
        })
        const scripted = yield* Scripted.Scripted
        expect(scripted.asked()).toEqual([work])
        expect(scripted.requests()).toBe(1)
        const heard = yield* Heard
        expect(heard.timed()).toEqual(["0 Stopping"])
        expect(heard.lines()).toEqual([
          "claude refused the argument --permission-mode yolo fallback gave it: error: option '--permission-mode <mode>' argument 'yolo' is invalid.; the turn fails here: it is taken once, whatever a chain says"
        ])
      }).pipe(Effect.provide(setup(preset, { [work]: [refusedArguments] }))))

    // 003: "5 failures in a row park a model 60 s": a refusal of fallback's arguments is none of them.
    it.effect(`${preset.name}: six in a row park nothing and count nothing against the place`, () =>
      Effect.gen(function*() {
        for (let i = 0; i < 6; i++) expect(Exit.isFailure(yield* turn(preset, `turn ${i}`))).toBe(true)
        const scripted = yield* Scripted.Scripted
        expect(scripted.seen(work).turns).toBe(6)
        expect(scripted.requests()).toBe(6)
        const health = yield* Health.Health
        expect(yield* health.snapshot).toEqual([])
        expect(yield* turn(preset, "after")).toEqual(Exit.succeed(`ok from ${work}`))
      }).pipe(
        Effect.provide(
          setup(preset, { [work]: [...Array(6).fill(refusedArguments), Scripted.answer(`ok from ${work}`)] })
        )
      ))
  }
})

describe("a prompt refused by content policy", () => {
  for (const preset of presets) {
    it.effect(`${preset.name}: taken once, whatever the chain says, with the provider's reason`, () =>
      Effect.gen(function*() {
        const exit = yield* turn(preset)
        expect(failedWith(exit)?.message).toBe(
          "claude@work refused the prompt by its content policy: 400: content_policy_violation: rejected by the safety system"
        )
        expect((yield* Scripted.Scripted).requests()).toBe(1)
        expect((yield* Heard).timed()).toEqual(["0 Stopping"])
      }).pipe(Effect.provide(setup(preset, {
        [work]: [
          Scripted.fail((place) =>
            new Failure.Refused({
              place,
              said: Failure.said("400: content_policy_violation: rejected by the safety system")
            })
          )
        ]
      }))))
  }
})

// 002: "Timeout: Up to MaxSendTimeoutRetries (3) attempts on the same model, spaced by
// SendTimeoutRetryInterval (15 s)": the provider's own timeout (408, 504, ETIMEDOUT) is that row.
it.effect("escalating: a provider's own timeout takes 3 attempts 15 s apart, then the next model", () =>
  Effect.gen(function*() {
    expect(yield* turn(Preset.escalating)).toEqual(Exit.succeed(`ok from ${codex}`))
    const scripted = yield* Scripted.Scripted
    expect(scripted.seen(work).at).toEqual([0, 15_000, 30_000])
    expect(scripted.seen(codex).at).toEqual([30_000])
    expect((yield* Heard).lines()[0]).toBe(
      "claude@work timed out on its own side (408: Request Timeout); a wait or another place is what answers it; trying again in 15s (1 of 2)"
    )
  }).pipe(Effect.provide(setup(Preset.escalating, {
    [work]: [
      Scripted.fail((place) =>
        new Failure.Timeout({
          place,
          said: Failure.said("408: Request Timeout"),
          phase: "provider",
          after: Duration.zero
        })
      )
    ]
  }))))

describe("what failed is remembered by the next agent", () => {
  const day = Duration.toMillis(Duration.hours(24))

  /** A second agent's turn, after `after` more millis. */
  const later = (preset: Preset.Preset, after: number) =>
    Effect.gen(function*() {
      yield* TestClock.adjust(Duration.millis(after))
      ;(yield* Heard).notices.length = 0
      const agent = yield* Agent.make(work, undefined, preset.options)
      return yield* Agent.ask(agent, "again")
    })

  it.effect("primary: a refused account is skipped by the next agent for a day, with how to clear it", () =>
    Effect.gen(function*() {
      expect(yield* turn(Preset.primary)).toEqual(Exit.succeed(`ok from ${home}`))
      const scripted = yield* Scripted.Scripted
      expect(scripted.seen(work).turns).toBe(1)
      expect(yield* later(Preset.primary, 0)).toBe(`ok from ${home}`)
      expect(scripted.seen(work).turns).toBe(1)
      const heard = yield* Heard
      const skipping = heard.notices.find(({ notice }) => notice._tag === "Skipping")!.notice
      expect(Notice.format(skipping)).toMatch(
        /^claude@work\/opus is cooling down for another 23h \(it refused the credentials: sign in again, then `fallback status --clear claude@work\/opus`\); skipping it$/
      )
      // Still a day after the refusal, less a millisecond; then asked again.
      expect(yield* later(Preset.primary, day - Duration.toMillis(Duration.hours(1)) - 1)).toBe(`ok from ${home}`)
      expect(scripted.seen(work).turns).toBe(1)
      expect(yield* later(Preset.primary, 1)).toBe(`ok from ${work}`)
      expect(scripted.seen(work).turns).toBe(2)
    }).pipe(
      Effect.provide(
        setup(Preset.primary, { [work]: [Scripted.fail("AuthRefused"), Scripted.answer(`ok from ${work}`)] })
      )
    ))

  it.effect("primary: a retired model is skipped by the next agent for a day", () =>
    Effect.gen(function*() {
      expect(yield* turn(Preset.primary)).toEqual(Exit.succeed(`ok from ${codex}`))
      const scripted = yield* Scripted.Scripted
      expect(yield* later(Preset.primary, day - Duration.toMillis(Duration.hours(1)) - 1)).toBe(`ok from ${codex}`)
      expect(scripted.seen(work).turns).toBe(1)
      expect(yield* later(Preset.primary, 1)).toBe(`ok from ${work}`)
      expect(scripted.seen(work).turns).toBe(2)
    }).pipe(
      Effect.provide(
        setup(Preset.primary, { [work]: [Scripted.fail("ModelNotFound"), Scripted.answer(`ok from ${work}`)] })
      )
    ))

  it.effect("primary: `status --clear` (the health cleared) lets the next agent ask the refused account again", () =>
    Effect.gen(function*() {
      yield* turn(Preset.primary)
      yield* Effect.flatMap(Health.Health, (health) => health.clear())
      expect(yield* later(Preset.primary, 0)).toBe(`ok from ${work}`)
      expect((yield* Scripted.Scripted).seen(work).turns).toBe(2)
    }).pipe(
      Effect.provide(
        setup(Preset.primary, { [work]: [Scripted.fail("AuthRefused"), Scripted.answer(`ok from ${work}`)] })
      )
    ))

  // 002: a 401 is "any other error": it switches to the next fallback, registering no cooldown.
  it.effect("escalating keeps 002's reading: a 401 cools nothing, so the next agent asks there again", () =>
    Effect.gen(function*() {
      expect(yield* turn(Preset.escalating)).toEqual(Exit.succeed(`ok from ${codex}`))
      expect(yield* later(Preset.escalating, 0)).toBe(`ok from ${work}`)
      expect((yield* Scripted.Scripted).seen(work).turns).toBe(2)
    }).pipe(Effect.provide(setup(Preset.escalating, {
      [work]: [
        Scripted.fail((place) => new Failure.AuthRefused({ place, said: Failure.said("401"), status: 401 })),
        Scripted.answer(`ok from ${work}`)
      ]
    }))))
})
