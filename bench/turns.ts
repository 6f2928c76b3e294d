/**
 * B1 happy path and B2 failover: one turn at a time, in one loop, at a 3-place chain whose places
 * answer in-process at once; in B2 the first place fails with a kind that moves at once.
 */
import type { Backend } from "@fallback/core"
import { Agent, Place } from "@fallback/core"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { against, type Figure, figure, repetitions } from "./figures.js"
import { inEffect, inPromises } from "./loops.js"
import * as peers from "./peers.js"
import { chain, opened, session, world } from "./world.js"

const turns = Number(process.env.BENCH_TURNS ?? 5_000)
const fresh = Math.max(200, Math.floor(turns / 20))

const up = ["claude/a", "codex/b", "gemini/c"]
const down = ["claude/down", "codex/b", "gemini/c"]

/** The fold Agent.ask makes over a turn's events, over a session's stream with no engine round it. */
const bare = (stream: Stream.Stream<Backend.Event, unknown>) =>
  Stream.runFold(stream, () => ({ text: "", result: Option.none<string>() }), (acc, event) =>
    event._tag === "Text"
      ? { ...acc, text: acc.text + event.text }
      : event._tag === "Result"
      ? { ...acc, result: Option.some(event.text) }
      : acc)

/**
 * Figures of the engine at `chain`: a held agent's turns answered whole (replies that keep their
 * limits, then replies the engine times, which it takes only from an agent with no first-byte
 * limit), its turns as streams, and a fresh agent per turn (its first-time build).
 */
const ours = (bench: string, places: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const held = (timed: boolean) =>
      Effect.scoped(Effect.gen(function*() {
        const agent = yield* Agent.make(places[0]!, undefined, {
          moved: "returns",
          ...(timed ? { firstByte: Option.none() } : {})
        })
        return yield* inEffect(turns, Agent.ask(agent, "hi"))
      })).pipe(Effect.provide(world(chain(places), timed)))
    const streamed = yield* Effect.scoped(Effect.gen(function*() {
      const agent = yield* Agent.make(places[0]!, undefined, { moved: "returns" })
      return yield* inEffect(fresh, bare(agent.turn("hi")))
    })).pipe(Effect.provide(world(chain(places))))
    const before = opened.count
    const once = yield* inEffect(
      fresh,
      Effect.scoped(Effect.flatMap(Agent.make(places[0]!), (agent) => Agent.ask(agent, "hi")))
    )
      .pipe(Effect.provide(world(chain(places))))
    const builds = (opened.count - before) / (fresh * (repetitions + 1))
    return [
      figure(bench, "fallback Agent.ask (held agent)", "µs", yield* held(false)),
      figure(bench, "fallback Agent.ask, reply timed by the engine (no first-byte limit)", "µs", yield* held(true)),
      figure(bench, "fallback agent.turn, streamed", "µs", streamed),
      figure(bench, "fallback, fresh agent per turn", "µs", once, `${builds.toFixed(2)} sessions opened a turn`)
    ]
  })

/** ExecutionPlan over the three places, with Layer steps and with Context steps (`downFirst`: the first fails). */
const plans = async (bench: string, downFirst: boolean) => {
  const timed = (turn: Effect.Effect<string, unknown>) => Effect.runPromise(inEffect(turns, turn))
  return [
    figure(
      bench,
      "ExecutionPlan, Layer steps",
      "µs",
      await timed(Effect.withExecutionPlan(peers.ask, peers.layerPlan(downFirst)))
    ),
    figure(
      bench,
      "ExecutionPlan, Context steps",
      "µs",
      await timed(Effect.withExecutionPlan(peers.ask, peers.contextPlan(downFirst)))
    )
  ]
}

/** B1: a turn that lands at the first place. */
export const happy = async (): Promise<Array<Figure>> => {
  const prompt = { text: "hi", history: [] }
  const limits = { by: Infinity, whole: Infinity, deadline: Infinity }
  const at = session(Place.Place.make({ cli: "claude", model: "a" }))
  const breaker = peers.retryBreaker()
  const figures = [
    figure("B1", "Effect.tryPromise (bare)", "µs", await Effect.runPromise(inEffect(turns, peers.answerEffect))),
    figure("B1", "plain promise", "µs", await inPromises(turns, peers.answer)),
    figure(
      "B1",
      "fallback's session reply (bare)",
      "µs",
      await Effect.runPromise(inEffect(turns, at.reply!(prompt, limits)))
    ),
    figure(
      "B1",
      "fallback's session stream (bare)",
      "µs",
      await Effect.runPromise(inEffect(fresh, bare(at.turn(prompt))))
    ),
    // What bounding the bare stream by hand costs, with one of the limits the engine keeps.
    figure(
      "B1",
      "fallback's session stream under Stream.timeoutOrElse (bare, one limit)",
      "µs",
      await Effect.runPromise(
        inEffect(
          fresh,
          bare(
            Stream.timeoutOrElse(at.turn(prompt), { duration: Duration.seconds(30), orElse: () => Stream.fail("late") })
          )
        )
      )
    ),
    ...await Effect.runPromise(ours("B1", up)),
    figure("B1", "cockatiel retry+breaker", "µs", await inPromises(turns, () => breaker.execute(peers.answer))),
    ...await plans("B1", false)
  ]
  return against(figures, "Effect.tryPromise (bare)")
}

/** B2: the first place fails with a kind that moves at once; the second answers. */
export const failover = async (): Promise<Array<Figure>> => {
  const caught = Effect.catch(peers.refuseEffect, () => peers.answerEffect)
  const cockatiel = peers.fallbackTo(peers.answer)
  const figures = [
    figure("B2", "hand-written Effect.catch", "µs", await Effect.runPromise(inEffect(turns, caught))),
    figure("B2", "plain promise .catch", "µs", await inPromises(turns, () => peers.refuse().catch(peers.answer))),
    ...await Effect.runPromise(ours("B2", down)),
    figure("B2", "cockatiel fallback", "µs", await inPromises(turns, () => cockatiel.execute(peers.refuse))),
    ...await plans("B2", true)
  ]
  return against(figures, "hand-written Effect.catch")
}
