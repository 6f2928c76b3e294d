/**
 * B2's held agent and B3's 1,000 held agents, as functions a driver calls round by round, so that
 * two builds of the engine (this tree and another commit's) are measured interleaved in one
 * process: `node bench/ab.mjs <commit>`. Each build is its own bundle, with its own copy of Effect.
 */
import { Agent } from "@fallback/core"
import { wrap } from "cockatiel"
import * as Array from "effect/Array"
import * as Effect from "effect/Effect"
import * as peers from "./peers.js"
import { chain, world } from "./world.js"

const collect = () => (globalThis as { gc?: () => void }).gc?.()
const heap = () => process.memoryUsage().heapUsed / 2 ** 20

/** CPU time of this process in ms (all its threads, the collector's included): on a machine others share, steadier than the wall. */
const cpu = () => {
  const { system, user } = process.cpuUsage()
  return (user + system) / 1000
}

/** µs of CPU a turn, `n` turns in a row after a warm-up. */
const loop = <E, R>(n: number, turn: Effect.Effect<unknown, E, R>) =>
  Effect.gen(function*() {
    for (let i = 0; i < 200; i++) yield* turn
    const start = cpu()
    for (let i = 0; i < n; i++) yield* turn
    return ((cpu() - start) * 1000) / n
  })

/** µs of CPU a turn: B2's held agent failing over, and the hand-written catchAll; `started` is awaited after the warm-up. */
export const b2 = (n: number, started: () => Promise<void> = () => Promise.resolve()) => {
  const places = ["claude/down", "codex/b", "gemini/c"]
  return Effect.runPromise(
    Effect.scoped(Effect.gen(function*() {
      const agent = yield* Agent.make(places[0]!, undefined, { moved: "returns" })
      for (let i = 0; i < 200; i++) yield* Agent.ask(agent, "hi")
      yield* Effect.promise(started)
      return yield* loop(n, Agent.ask(agent, "hi"))
    })).pipe(Effect.provide(world(chain(places), false)))
  )
}

export const catchAll = (n: number) =>
  Effect.runPromise(loop(n, Effect.catch(peers.refuseEffect, () => peers.answerEffect)))

const places = 1_000
const turns = 10_000
const isDown = (place: number) => place % 5 === 0
const placeOf = (turn: number) => turn % places
const nameOf = (place: number) => isDown(place) ? `claude/down${place}` : `claude/m${place}`

/** B3: ms wall and MB heap growth of 10,000 turns over 1,000 held agents, and KB per idle place. */
export const b3 = () => {
  const names = Array.makeBy(places, nameOf)
  return Effect.runPromise(
    Effect.scoped(Effect.gen(function*() {
      collect()
      const empty = heap()
      const agents = yield* Effect.forEach(names, (place) => Agent.make(place, undefined, { moved: "returns" }))
      const run = Effect.runPromiseWith(yield* Effect.context<never>())
      yield* Effect.forEach(agents, (agent) => Agent.ask(agent, "hi"), { concurrency: "unbounded", discard: true })
      collect()
      const idle = ((heap() - empty) * 1024) / places
      collect()
      const before = heap()
      const start = performance.now()
      const used = cpu()
      yield* Effect.promise(() => Promise.all(Array.makeBy(turns, (t) => run(Agent.ask(agents[placeOf(t)]!, "hi")))))
      return { wall: performance.now() - start, cpu: cpu() - used, heap: heap() - before, idle }
    })).pipe(Effect.provide(world(names.map((place) => [place, "codex/b"] as const))))
  )
}

/** B3's 10,000 turns `times` times over one set of held agents, for a profiler: ms each time. */
export const b3turns = (times: number, started: () => Promise<void> = () => Promise.resolve()) => {
  const names = Array.makeBy(places, nameOf)
  return Effect.runPromise(
    Effect.scoped(Effect.gen(function*() {
      const agents = yield* Effect.forEach(names, (place) => Agent.make(place, undefined, { moved: "returns" }))
      const run = Effect.runPromiseWith(yield* Effect.context<never>())
      const walls: Array<number> = []
      yield* Effect.forEach(agents, (agent) => Agent.ask(agent, "hi"), { concurrency: "unbounded", discard: true })
      yield* Effect.promise(started)
      for (let i = 0; i < times; i++) {
        const start = performance.now()
        yield* Effect.promise(() => Promise.all(Array.makeBy(turns, (t) => run(Agent.ask(agents[placeOf(t)]!, "hi")))))
        walls.push(performance.now() - start)
      }
      return walls
    })).pipe(Effect.provide(world(names.map((place) => [place, "codex/b"] as const))))
  )
}

/** B3's cockatiel peer. */
export const b3cockatiel = async () => {
  const callAt = (place: number) => isDown(place) ? peers.refuse() : peers.answer()
  const policies = Array.makeBy(places, () => wrap(peers.fallbackTo(peers.answer), peers.retryBreaker()))
  collect()
  const before = heap()
  const start = performance.now()
  const used = cpu()
  await Promise.all(Array.makeBy(turns, (t) => policies[placeOf(t)]!.execute(() => callAt(placeOf(t)))))
  return { wall: performance.now() - start, cpu: cpu() - used, heap: heap() - before, idle: 0 }
}
