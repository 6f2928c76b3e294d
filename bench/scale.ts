/**
 * B3 scale: 10,000 turns at once over 1,000 places, the first attempt at every fifth place failing
 * over to a second. Wall time and heap growth (heap used when the last turn ends, less heap used
 * after a collection before the first starts); run with `--expose-gc` for the collections.
 */
import { Agent } from "@fallback/core"
import { wrap } from "cockatiel"
import * as Array from "effect/Array"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as ExecutionPlan from "effect/ExecutionPlan"
import * as Layer from "effect/Layer"
import { against, type Figure, figure, repetitions } from "./figures.js"
import * as peers from "./peers.js"
import { world } from "./world.js"

const places = 1_000
const turns = 10_000
const isDown = (place: number) => place % 5 === 0
const placeOf = (turn: number) => turn % places
const nameOf = (place: number) => isDown(place) ? `claude/down${place}` : `claude/m${place}`

const collect = () => (globalThis as { gc?: () => void }).gc?.()
const heap = () => process.memoryUsage().heapUsed / 2 ** 20

/** One measurement: ms from the first turn to the last, and MB of heap grown by then. */
interface Run {
  readonly wall: number
  readonly heap: number
}

const measure = async (prepare: () => Promise<() => Promise<unknown>>): Promise<Run> => {
  const go = await prepare()
  collect()
  const before = heap()
  const start = performance.now()
  await go()
  const wall = performance.now() - start
  return { wall, heap: heap() - before }
}

const callAt = (place: number) => isDown(place) ? peers.refuse() : peers.answer()
const effectAt = (place: number) => isDown(place) ? peers.refuseEffect : peers.answerEffect

const variants: ReadonlyArray<readonly [string, () => Promise<() => Promise<unknown>>]> = [
  ["plain promises", async () => () => Promise.all(Array.makeBy(turns, (t) => callAt(placeOf(t)).catch(peers.answer)))],
  ["cockatiel fallback+breaker, one per place", async () => {
    const policies = Array.makeBy(places, () => wrap(peers.fallbackTo(peers.answer), peers.retryBreaker()))
    return () => Promise.all(Array.makeBy(turns, (t) => policies[placeOf(t)]!.execute(() => callAt(placeOf(t)))))
  }],
  ["Effect.catch, unbounded", async () => () =>
    Effect.runPromise(
      Effect.forEach(
        Array.range(0, turns - 1),
        (t) => Effect.catch(effectAt(placeOf(t)), () => peers.answerEffect),
        {
          concurrency: "unbounded",
          discard: true
        }
      )
    )],
  ["Effect.catch, a runPromise per turn", async () => () =>
    Promise.all(
      Array.makeBy(turns, (t) => Effect.runPromise(Effect.catch(effectAt(placeOf(t)), () => peers.answerEffect)))
    )],
  ["ExecutionPlan, Layer steps", async () => {
    const plans = Array.makeBy(places, (place) =>
      ExecutionPlan.make(
        { provide: Layer.succeed(peers.Model, { ask: effectAt(place) }) },
        { provide: Layer.succeed(peers.Model, { ask: peers.answerEffect }) }
      ))
    return () =>
      Effect.runPromise(Effect.forEach(
        Array.range(0, turns - 1),
        (t) => Effect.withExecutionPlan(peers.ask, plans[placeOf(t)]!),
        { concurrency: "unbounded", discard: true }
      ))
  }],
  ["ExecutionPlan, Context steps", async () => {
    const plans = Array.makeBy(places, (place) =>
      ExecutionPlan.make(
        { provide: Context.make(peers.Model, { ask: effectAt(place) }) },
        { provide: Context.make(peers.Model, { ask: peers.answerEffect }) }
      ))
    return () =>
      Effect.runPromise(Effect.forEach(
        Array.range(0, turns - 1),
        (t) => Effect.withExecutionPlan(peers.ask, plans[placeOf(t)]!),
        { concurrency: "unbounded", discard: true }
      ))
  }]
]

/**
 * The engine: 1,000 held agents, one per place, each taking its first turn before the clock starts;
 * each of the 10,000 turns is its own fiber, started with `runPromise`, as the peers' promises are.
 */
const ours = async (): Promise<{ readonly runs: Array<Run>; readonly idle: number }> => {
  const chain = Array.makeBy(places, nameOf)
  const layer = world(chain.map((place) => [place, "codex/b"] as const))
  return Effect.runPromise(
    Effect.scoped(Effect.gen(function*() {
      collect()
      const empty = heap()
      const agents = yield* Effect.forEach(chain, (place) => Agent.make(place, undefined, { moved: "returns" }))
      const run = Effect.runPromiseWith(yield* Effect.context<never>())
      yield* Effect.forEach(agents, (agent) => Agent.ask(agent, "hi"), { concurrency: "unbounded", discard: true })
      collect()
      const idle = ((heap() - empty) * 2 ** 20) / places
      const runs: Array<Run> = []
      for (let r = 0; r < repetitions; r++) {
        collect()
        const before = heap()
        const start = performance.now()
        yield* Effect.promise(() => Promise.all(Array.makeBy(turns, (t) => run(Agent.ask(agents[placeOf(t)]!, "hi")))))
        runs.push({ wall: performance.now() - start, heap: heap() - before })
      }
      return { runs, idle }
    })).pipe(Effect.provide(layer))
  )
}

/** B3's figures: wall time and heap growth of each. */
export const scale = async (): Promise<Array<Figure>> => {
  const walls: Array<Figure> = []
  const heaps: Array<Figure> = []
  for (const [name, prepare] of variants) {
    const runs: Array<Run> = []
    for (let r = 0; r < repetitions; r++) runs.push(await measure(prepare))
    walls.push(figure("B3", `${name}: wall`, "ms", runs.map((run) => run.wall)))
    heaps.push(figure("B3", `${name}: heap growth`, "MB", runs.map((run) => run.heap)))
  }
  const { idle, runs } = await ours()
  walls.push(figure("B3", "fallback, 1,000 held agents: wall", "ms", runs.map((run) => run.wall)))
  heaps.push(
    figure(
      "B3",
      "fallback, 1,000 held agents: heap growth",
      "MB",
      runs.map((run) => run.heap),
      `${(idle / 1024).toFixed(1)} KB per idle place`
    )
  )
  return [...against(walls, "plain promises: wall"), ...against(heaps, "plain promises: heap growth")]
}
