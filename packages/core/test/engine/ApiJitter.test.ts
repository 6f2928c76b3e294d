/**
 * The `api` preset's jitter, made testable: on the TestClock with a seeded `Random`, each of its
 * own waits is drawn from the upper half of its step (never shorter: no tight loop), the same seed
 * draws the same waits, different seeds spread agents apart; and a property over any run of faults
 * at a place: every wait there is what the preset's ladder allows, a short Retry-After exactly.
 */
import { describe, expect, it } from "@effect/vitest"
import { Scripted } from "@fallback/testkit"
import { Arbitrary, Effect, Exit, Fiber, Random } from "effect"
import { TestClock } from "effect/testing"
import { Agent, Preset } from "../../src/index.js"
import { gaps, next, setup, tooMany, work } from "./api.js"
import { between, oneOf } from "./world.js"

/** The times of the requests at the first place in one turn, and where the turn answered. */
const turn = (script: ReadonlyArray<Scripted.Outcome>, seed: string | number) =>
  Effect.gen(function*() {
    const agent = yield* Agent.make(work, undefined, Preset.api.options)
    const fiber = yield* Effect.forkChild(Effect.exit(Agent.ask(agent, "hello")))
    yield* TestClock.adjust("1 hour")
    const exit = yield* Fiber.join(fiber)
    return { at: (yield* Scripted.Scripted).seen(work).at, exit }
  }).pipe(Effect.scoped, Effect.provide(setup(script)), Random.withSeed(seed))

describe("api preset: jitter", () => {
  it.effect("a persistent 429's three waits: each in the upper half of 1, 2, 4 s; the same seed draws the same; seeds differ", () =>
    Effect.gen(function*() {
      const drawn: Array<ReadonlyArray<number>> = []
      for (let seed = 0; seed < 40; seed++) {
        const { at, exit } = yield* turn([tooMany()], seed)
        expect(exit).toEqual(Exit.succeed(`ok from ${next}`))
        const spaced = gaps(at)
        expect(spaced).toHaveLength(3)
        ;[1000, 2000, 4000].forEach((most, i) => {
          expect(spaced[i]).toBeGreaterThanOrEqual(most / 2)
          expect(spaced[i]).toBeLessThanOrEqual(most)
        })
        drawn.push(spaced)
        expect(gaps((yield* turn([tooMany()], seed)).at)).toEqual(spaced)
      }
      // Drawn, not fixed: the 40 seeds give (nearly) 40 different first waits, spread over their range.
      const firsts = drawn.map((spaced) => spaced[0]!)
      expect(new Set(firsts).size).toBeGreaterThan(30)
      expect(Math.min(...firsts)).toBeLessThan(650)
      expect(Math.max(...firsts)).toBeGreaterThan(850)
    }))

  it.effect("a 5xx's one wait: in [0.5 s, 1 s], drawn per seed", () =>
    Effect.gen(function*() {
      const waits = new Set<number>()
      for (let seed = 0; seed < 20; seed++) {
        const [wait] = gaps((yield* turn([Scripted.fail("Unknown")], `s${seed}`)).at)
        expect(wait).toBeGreaterThanOrEqual(500)
        expect(wait).toBeLessThanOrEqual(1000)
        waits.add(wait!)
      }
      expect(waits.size).toBeGreaterThan(10)
    }))

  // One fault at the place per request, in any order; the model of what the preset allows.
  type Fault = { readonly kind: "429" | "503" | "500" | "reset" | "ok"; readonly retryAfter: number | undefined }
  const fault: Arbitrary.Arbitrary<Fault> = Arbitrary.flatMap(
    oneOf(["429", "429ra", "503", "500", "reset", "ok"] as const),
    (kind) =>
      kind === "429ra"
        ? Arbitrary.map(between(1, 20_000), (retryAfter): Fault => ({ kind: "429", retryAfter }))
        : Arbitrary.Constant<Fault>({ kind, retryAfter: undefined })
  )
  const outcome = (f: Fault): Scripted.Outcome =>
    f.kind === "ok"
      ? Scripted.answer("ok")
      : f.kind === "500"
      ? Scripted.fail("Unknown")
      : f.kind === "reset"
      ? Scripted.fail("ConnectionLost")
      : tooMany(f.retryAfter === undefined ? undefined : `${f.retryAfter} millis`, f.kind === "503" ? 503 : 429)

  /** What the api preset allows for the faults in order: each wait's bounds, and where the turn ends. */
  const allowed = (faults: ReadonlyArray<Fault>) => {
    const goes = { rateLimited: 0, unknown: 0, reset: 0 }
    const bounds: Array<readonly [number, number]> = []
    for (const f of faults) {
      if (f.kind === "ok") return { bounds, ends: work }
      if (f.kind === "500") {
        if (goes.unknown++ === 1) return { bounds, ends: next }
        bounds.push([500, 1000])
      } else if (f.kind === "reset") {
        if (goes.reset++ === 1) return { bounds, ends: next }
        bounds.push([0, 0])
      } else {
        if (goes.rateLimited === 3) return { bounds, ends: next }
        const most = 1000 * 2 ** goes.rateLimited++
        if (f.retryAfter !== undefined && f.retryAfter > 10_000) return { bounds, ends: next }
        bounds.push(f.retryAfter !== undefined ? [f.retryAfter, f.retryAfter] : [most / 2, most])
      }
    }
    // The last fault repeats.
    return allowed([...faults, faults.at(-1)!, faults.at(-1)!, faults.at(-1)!, faults.at(-1)!])
  }

  it.effect.prop(
    "any run of faults: every wait within the ladder's bounds, a short Retry-After exactly, a long one moves, never more goes than allowed",
    [Arbitrary.array(fault, { minLength: 1, maxLength: 8 }), between(0, 1_000_000)],
    ([faults, seed]) =>
      Effect.gen(function*() {
        const { at, exit } = yield* turn(faults.map(outcome), seed)
        const { bounds, ends } = allowed(faults)
        const spaced = gaps(at)
        expect(spaced.length).toBe(bounds.length)
        spaced.forEach((gap, i) => {
          expect(gap).toBeGreaterThanOrEqual(bounds[i]![0])
          expect(gap).toBeLessThanOrEqual(bounds[i]![1])
        })
        expect(exit).toEqual(Exit.succeed(ends === work ? "ok" : `ok from ${next}`))
      }),
    { arbitrary: { runs: 60 } }
  )
})
