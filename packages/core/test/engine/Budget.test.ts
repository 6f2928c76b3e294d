import { describe, expect, it } from "@effect/vitest"
import { Scripted } from "@fallback/testkit"
import { Arbitrary, Clock, Duration, Effect, Fiber, Option, Result, Schema } from "effect"
import { TestClock } from "effect/testing"
import { Agent, Failure, Health, Place, Policy, Preset } from "../../src/index.js"
import { anyOf, between, oneOf, shuffled, world } from "./world.js"

const pool = ["claude@work/a", "codex/b", "gemini/c", "opencode/d", "claude@home/a"]

const outcome: Arbitrary.Arbitrary<Scripted.Outcome> = anyOf(
  Arbitrary.map(oneOf(Failure.kinds), (kind) => Scripted.fail(kind)),
  Arbitrary.Constant(Scripted.hang),
  Arbitrary.Constant(Scripted.answer("fine")),
  Arbitrary.map(between(0, 3), (after) => Scripted.die(after, "Unknown")),
  Arbitrary.map(
    Arbitrary.all([between(0, 200_000), oneOf(Failure.kinds)]),
    ([millis, kind]) => Scripted.delay(Duration.millis(millis), Scripted.fail(kind))
  ),
  Arbitrary.map(between(0, 200_000), (millis) => Scripted.delay(Duration.millis(millis), Scripted.answer("late")))
)

const presets = { primary: Preset.primary, escalating: Preset.escalating, breaker: Preset.breaker }

const configuration = Arbitrary.all({
  preset: oneOf(["primary", "escalating", "breaker"] as const),
  chain: shuffled(pool.slice(0, 4), 1),
  scripts: Arbitrary.array(Arbitrary.array(outcome, { minLength: 1, maxLength: 4 }), { minLength: 5, maxLength: 5 }),
  retrying: Arbitrary.array(
    Arbitrary.all([between(0, 6), oneOf(Policy.names), between(0, 90)]),
    { minLength: 5, maxLength: 5 }
  ),
  deadline: between(1, 900),
  attempts: between(1, 12),
  parked: between(0, 4),
  whole: Arbitrary.schema(Schema.Boolean)
})

describe("one budget per turn", () => {
  it.effect.prop(
    "no configuration makes a turn run past its deadline, exceed its attempt cap, or call a parked place",
    [configuration],
    ([config]) =>
      Effect.gen(function*() {
        const parked = Place.Place.make(Result.getOrThrow(Place.parse(pool[config.parked]!)))
        const health = yield* Health.Health
        for (let i = 0; i < 5; i++) {
          yield* health.failed(parked, {
            failure: new Failure.Unknown({ place: parked, said: Failure.said("down") }),
            counts: true,
            coolUntil: Option.none()
          })
        }
        const deadline = Duration.seconds(config.deadline)
        const agent = yield* Agent.make(config.chain[0]!, undefined, {
          ...presets[config.preset].options,
          budget: { deadline, attempts: config.attempts }
        })
        const fiber = yield* Effect.forkChild(Effect.zip(Effect.exit(Agent.ask(agent, "go")), Clock.currentTimeMillis))
        yield* TestClock.adjust("3 hours")
        const [, endedAt] = yield* Fiber.join(fiber)
        const scripted = yield* Scripted.Scripted
        expect(endedAt).toBeLessThanOrEqual(Duration.toMillis(deadline))
        expect(scripted.requests()).toBeLessThanOrEqual(config.attempts)
        expect(scripted.seen(Place.format(parked)).turns).toBe(0)
      }).pipe(
        Effect.provide(world({
          script: {
            places: Object.fromEntries(pool.map((place, i) => [place, config.scripts[i]!])),
            whole: config.whole
          },
          chain: config.chain,
          accounts: { claude: ["work", "home"] },
          retrying: Object.fromEntries(
            pool.map((place, i) => {
              const [tries, policy, timeout] = config.retrying[i]!
              return [place, [tries, policy, Duration.seconds(timeout)] as const]
            })
          ),
          breaker: { failures: 5, park: Duration.hours(4) }
        })),
        Effect.scoped
      ),
    { arbitrary: { runs: 100 } }
  )
})
