import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Option, Result, Schema } from "effect"
import { Place, Steps } from "../src/index.js"

const run = <A, E>(effect: Effect.Effect<A, E, Steps.Steps>) => effect.pipe(Effect.provide(Steps.Steps.layerMemory))

const places = [
  "claude@work/claude-opus-5",
  "codex@key/gpt-5.6-sol",
  "dsh/deepseek-v4-flash",
  "gemini/gemini-3-pro",
  "opencode/x",
  "codex/y"
]
const written = (place: Place.Place) => Place.format(place)

describe("Steps", () => {
  it.effect("chain walks the whole way, as the reference page shows", () =>
    run(Effect.gen(function*() {
      const steps = yield* Steps.Steps
      yield* steps.points("claude@work/claude-opus-5", "codex@key/gpt-5.6-sol")
      yield* steps.points("codex@key/gpt-5.6-sol", "dsh/deepseek-v4-flash")
      expect((yield* steps.chain("claude@work/claude-opus-5")).map(written)).toEqual([
        "claude@work/claude-opus-5",
        "codex@key/gpt-5.6-sol",
        "dsh/deepseek-v4-flash"
      ])
    })))

  it.effect("a place cannot point at itself", () =>
    run(Effect.gen(function*() {
      const steps = yield* Steps.Steps
      const error = yield* Effect.flip(steps.points("claude/x", "claude/x"))
      expect(error.message).toBe("the step at claude/x points at itself; a place cannot fall back to itself")
      expect(yield* steps.all).toEqual([])
    })))

  it.effect("writing a step again replaces it: one place has one next", () =>
    run(Effect.gen(function*() {
      const steps = yield* Steps.Steps
      yield* steps.points("claude/a", "codex/b")
      yield* steps.points("claude/a", "gemini/c")
      expect((yield* steps.chain("claude/a")).map(written)).toEqual(["claude/a", "gemini/c"])
      expect((yield* steps.all).length).toBe(1)
    })))

  it.effect("a chain ends at the second sight of a place", () =>
    run(Effect.gen(function*() {
      const steps = yield* Steps.Steps
      yield* steps.points("claude/a", "codex/b")
      yield* steps.points("codex/b", "claude/a")
      expect((yield* steps.chain("claude/a")).map(written)).toEqual(["claude/a", "codex/b"])
      expect((yield* steps.chain("codex/b")).map(written)).toEqual(["codex/b", "claude/a"])
    })))

  it.effect("retrying stands alone, and points keeps it", () =>
    run(Effect.gen(function*() {
      const steps = yield* Steps.Steps
      yield* steps.retrying("claude/a", 3, "exponential", Duration.seconds(90))
      const alone = Option.getOrThrow(yield* steps.get("claude/a"))
      expect(Option.isNone(alone.to)).toBe(true)
      yield* steps.points("claude/a", "codex/b")
      const step = Option.getOrThrow(yield* steps.get("claude/a"))
      expect(Option.map(step.to, written)).toEqual(Option.some("codex/b"))
      const retrying = Option.getOrThrow(step.retrying)
      expect([retrying.tries, retrying.policy, Duration.toSeconds(retrying.timeout)]).toEqual([3, "exponential", 90])
      yield* steps.retrying("claude/a", 1)
      const again = Option.getOrThrow(Option.getOrThrow(yield* steps.get("claude/a")).retrying)
      expect([again.tries, again.policy, Duration.toMillis(again.timeout)]).toEqual([1, "exponential-jitter", 0])
      yield* steps.clear("claude/a")
      expect(yield* steps.all).toEqual([])
    })))

  it.effect("refuses a bad place and bad tries", () =>
    run(Effect.gen(function*() {
      const steps = yield* Steps.Steps
      expect((yield* Effect.flip(steps.points("Claude/a", "codex/b")))._tag).toBe("InvalidPlace")
      expect((yield* Effect.flip(steps.retrying("claude/a", -1))).message).toBe(
        "tries is -1; tries is a whole number of goes beyond the first (0 to 100) and timeout 0 to 86400 seconds"
      )
    })))

  it.effect.prop(
    "every chain starts at its place, follows to, never repeats, and is what a naive walk gives",
    [
      Schema.Array(Schema.Tuple([Schema.Literals(places), Schema.Literals(places)])).check(Schema.isMaxLength(12)),
      Schema.Literals(places)
    ],
    ([edits, start]) =>
      run(Effect.gen(function*() {
        const steps = yield* Steps.Steps
        const next = new Map<string, string>()
        for (const [from, to] of edits) {
          const result = yield* Effect.result(steps.points(from, to))
          expect(Result.isFailure(result)).toBe(from === to)
          if (from !== to) next.set(from, to)
        }
        const naive: Array<string> = []
        const seen = new Set<string>()
        for (let at: string | undefined = start; at !== undefined && !seen.has(at); at = next.get(at)) {
          seen.add(at)
          naive.push(at)
        }
        const chain = (yield* steps.chain(start)).map(written)
        expect(chain).toEqual(naive)
        expect(chain[0]).toBe(start)
        expect(new Set(chain).size).toBe(chain.length)
        chain.slice(1).forEach((place, i) => expect(next.get(chain[i]!)).toBe(place))
        expect((yield* steps.all).map((step) => written(step.place))).toEqual([...next.keys()].sort())
      })),
    { arbitrary: { runs: 100 } }
  )
})
