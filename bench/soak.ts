/**
 * The chaos soak, 10,000 turns: `npm run soak`. Replay one trial with its seed:
 * `SOAK_SEED=<seed> SOAK_TURNS=25 SOAK_PARALLEL=1 npm run soak`.
 */
import * as Effect from "effect/Effect"
import { describe, soak } from "../test/soak/soak.js"

const summary = await Effect.runPromise(soak({
  turns: Number(process.env.SOAK_TURNS ?? 10_000),
  seconds: Number(process.env.SOAK_SECONDS ?? 600),
  seed: Number(process.env.SOAK_SEED ?? 1),
  parallel: Number(process.env.SOAK_PARALLEL ?? 16),
  turnsPerTrial: 25,
  wallClock: true
}))
console.log(describe(summary))
process.exitCode = summary.broken.length === 0 ? 0 : 1
