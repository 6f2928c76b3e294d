import { describe, expect, it } from "@effect/vitest"
import { Agent, Failure, Health, Place, Policy, Preset } from "@fallback/core"
import { Clock, Duration, Effect, Either, FastCheck as fc, Fiber, Option, TestClock } from "effect"
import { Scripted } from "../src/index.js"
import { world } from "./world.js"

const pool = ["claude@work/a", "codex/b", "gemini/c", "opencode/d", "claude@home/a"]

const outcome: fc.Arbitrary<Scripted.Outcome> = fc.oneof(
  fc.constantFrom(...Failure.kinds).map((kind) => Scripted.fail(kind)),
  fc.constant(Scripted.hang),
  fc.constant(Scripted.answer("fine")),
  fc.nat({ max: 3 }).map((after) => Scripted.die(after, "Unknown")),
  fc.tuple(fc.integer({ min: 0, max: 200_000 }), fc.constantFrom(...Failure.kinds)).map(([millis, kind]) =>
    Scripted.delay(Duration.millis(millis), Scripted.fail(kind))
  ),
  fc.integer({ min: 0, max: 200_000 }).map((millis) => Scripted.delay(Duration.millis(millis), Scripted.answer("late")))
)

const presets = { primary: Preset.primary, escalating: Preset.escalating, breaker: Preset.breaker }

const configuration = fc.record({
  preset: fc.constantFrom("primary" as const, "escalating" as const, "breaker" as const),
  chain: fc.shuffledSubarray(pool.slice(0, 4), { minLength: 1 }),
  scripts: fc.array(fc.array(outcome, { minLength: 1, maxLength: 4 }), { minLength: 5, maxLength: 5 }),
  retrying: fc.array(
    fc.tuple(fc.nat({ max: 6 }), fc.constantFrom(...Policy.names), fc.nat({ max: 90 })),
    { minLength: 5, maxLength: 5 }
  ),
  deadline: fc.integer({ min: 1, max: 900 }),
  attempts: fc.integer({ min: 1, max: 12 }),
  parked: fc.nat({ max: 4 }),
  whole: fc.boolean()
})

describe("one budget per turn", () => {
  it.effect.prop(
    "no configuration makes a turn run past its deadline, exceed its attempt cap, or call a parked place",
    [configuration],
    ([config]) =>
      Effect.gen(function*() {
        const parked = Place.Place.make(Either.getOrThrow(Place.parse(pool[config.parked]!)))
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
        const fiber = yield* Effect.fork(Effect.zip(Effect.exit(Agent.ask(agent, "go")), Clock.currentTimeMillis))
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
    { fastCheck: { numRuns: 100 } }
  )
})
