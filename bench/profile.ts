/**
 * The hot path alone, for a profiler: a held agent's turns that land at the first place of a
 * 3-place chain, and the same session's stream with no engine round it; with what such turns
 * build, publish, write and fork.
 *
 *   npx tsx --conditions=@fallback/source bench/profile.ts
 *   node --cpu-prof --import tsx --conditions=@fallback/source bench/profile.ts
 */
import { Agent, Place } from "@fallback/core"
import { Fibers } from "@fallback/testkit"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { spread } from "./figures.js"
import { inEffect } from "./loops.js"
import { chain, heard, opened, session, world, written } from "./world.js"

const turns = Number(process.env.BENCH_TURNS ?? 5_000)
const at = session(Place.Place.make({ cli: "claude", model: "a" }))
const prompt = { text: "hi", history: [] }

const forks = <E>(turn: Effect.Effect<unknown, E>) =>
  Effect.map(Fibers.started(Effect.repeat(turn, { times: 99 })), (count) => count / 100)

const program = Effect.gen(function*() {
  const agent = yield* Agent.make("claude/a")
  const bare = spread(yield* inEffect(turns, at.reply!(prompt, { by: Infinity, whole: Infinity, deadline: Infinity })))
  const ours = spread(yield* inEffect(turns, Agent.ask(agent, "hi")))
  const streamed = spread(yield* inEffect(turns / 10, Stream.runDrain(agent.turn("hi"))))
  console.log(
    `bare reply ${bare.median.toFixed(2)} µs, Agent.ask ${ours.median.toFixed(2)} µs, agent.turn streamed ${
      streamed.median.toFixed(1)
    } µs a turn`
  )
  console.log(
    `fibers started a turn: bare reply ${yield* forks(
      at.reply!(prompt, { by: Infinity, whole: Infinity, deadline: Infinity })
    )}, Agent.ask ${yield* forks(Agent.ask(agent, "hi"))}`
  )
  console.log(
    `over every turn: sessions opened ${opened.count}, notices ${heard.count}, health writes ${written.count}`
  )
}).pipe(Effect.scoped, Effect.provide(world(chain(["claude/a", "codex/b", "gemini/c"]))))

await Effect.runPromise(program)
