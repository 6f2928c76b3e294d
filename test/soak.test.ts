import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { describe as summarise, soak } from "./soak/soak.js"

describe("chaos soak", () => {
  it.live("turns over scripted and HTTP places with random faults, policies and budgets keep every invariant", () =>
    Effect.gen(function*() {
      const seed = Number(process.env.SOAK_SEED ?? Date.now() % 100_000)
      const summary = yield* soak({ turns: 10_000, seconds: 30, seed, parallel: 8, turnsPerTrial: 25 })
      console.log(summarise(summary))
      expect(summary.turns).toBeGreaterThan(40)
      expect(Object.keys(summary.mix).filter((ending) => ending.startsWith("failed")).length).toBeGreaterThan(3)
      expect(summary.broken, "replay a seed named below: SOAK_SEED=<seed> SOAK_TURNS=25 SOAK_PARALLEL=1 npm run soak")
        .toEqual([])
    }), 70_000)
})
