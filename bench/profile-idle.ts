/**
 * B3's 1,000 held agents, idle after one turn each, for a heap snapshot: what an idle place holds.
 *
 *   node bench/build.mjs profile-idle && node --expose-gc bench/profile-idle.bundle.mjs
 *
 * writes `idle-before.heapsnapshot` (the world, no agent) and `idle-after.heapsnapshot` (the agents).
 */
import { Agent } from "@fallback/core"
import * as Array from "effect/Array"
import * as Effect from "effect/Effect"
import { writeHeapSnapshot } from "node:v8"
import { world } from "./world.js"

const places = 1_000
const nameOf = (place: number) => place % 5 === 0 ? `claude/down${place}` : `claude/m${place}`
const names = Array.makeBy(places, nameOf)
const collect = () => (globalThis as { gc?: () => void }).gc?.()
const heap = () => process.memoryUsage().heapUsed

Effect.runPromise(
  Effect.scoped(Effect.gen(function*() {
    const warm = yield* Agent.make("claude/warm", undefined, { moved: "returns" })
    yield* Agent.ask(warm, "hi")
    collect()
    const empty = heap()
    if (process.env.SNAPSHOT) writeHeapSnapshot("idle-before.heapsnapshot")
    const agents = yield* Effect.forEach(names, (place) => Agent.make(place, undefined, { moved: "returns" }))
    yield* Effect.forEach(agents, (agent) => Agent.ask(agent, "hi"), { concurrency: "unbounded", discard: true })
    collect()
    console.log(`${((heap() - empty) / 1024 / places).toFixed(2)} KB per idle place`)
    if (process.env.SNAPSHOT) writeHeapSnapshot("idle-after.heapsnapshot")
    return agents.length
  })).pipe(Effect.provide(world([...names.map((place) => [place, "codex/b"] as const), ["claude/warm", "codex/b"]])))
)
