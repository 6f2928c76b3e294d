/**
 * B2's held agent alone, for a profiler: every turn fails at the first place (a kind that moves at
 * once) and lands at the second.
 *
 *   node bench/build.mjs profile-failover && node --cpu-prof bench/profile-failover.bundle.mjs
 */
import { Agent } from "@fallback/core"
import * as Effect from "effect/Effect"
import { spread } from "./figures.js"
import { inEffect } from "./loops.js"
import { chain, world } from "./world.js"

const turns = Number(process.env.BENCH_TURNS ?? 20_000)
const places = ["claude/down", "codex/b", "gemini/c"]

const program = Effect.scoped(Effect.gen(function*() {
  const agent = yield* Agent.make(places[0]!, undefined, { moved: "returns" })
  const figures = spread(yield* inEffect(turns, Agent.ask(agent, "hi")))
  console.log(`failover Agent.ask ${figures.median.toFixed(2)} µs`)
})).pipe(Effect.provide(world(chain(places), false)))

Effect.runPromise(program)
