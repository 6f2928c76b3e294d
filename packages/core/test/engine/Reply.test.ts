/**
 * Turns answered whole (`agent.reply`, under `Agent.ask`): what a landing turn costs (no fiber,
 * nothing opened, written or published), the limits a reply is given, when the engine times a
 * reply itself, and the conversation an agent keeps for a backend that does not keep it.
 */
import { describe, expect, it } from "@effect/vitest"
import { Fibers } from "@fallback/testkit"
import { Duration, Effect, Fiber, Layer, Option, Stream } from "effect"
import { TestClock } from "effect/testing"
import { Agent, Backend, Failure, Health, Notice, Place, Steps } from "../../src/index.js"

/** What a place's session saw. */
interface Seen {
  opens: number
  readonly limits: Array<Backend.Limits>
  readonly histories: Array<ReadonlyArray<Backend.Exchange>>
}

/**
 * A backend whose sessions reply whole at once (`never` at a `hang…` model, a failure at a
 * `down…` model), with `keepsLimits` and `keepsConversation` as given.
 */
const replying = (
  cli: string,
  seen: Map<string, Seen>,
  keeps: { limits: boolean; conversation: boolean }
): Backend.Backend => ({
  cli,
  capabilities: { webSearchOff: true, callbacks: true, resume: true, models: [] },
  open: (place) =>
    Effect.sync(() => {
      const name = Place.format(place)
      const mine = seen.get(name) ?? { opens: 0, limits: [], histories: [] }
      seen.set(name, mine)
      mine.opens += 1
      const answer = [Backend.Event.Text({ text: `ok from ${name}` })]
      return {
        id: name,
        turn: () => Stream.fromIterable(answer),
        reply: (prompt, limits) =>
          Effect.suspend(() => {
            mine.limits.push(limits)
            mine.histories.push(prompt.history)
            return place.model.startsWith("hang")
              ? Effect.never
              : place.model.startsWith("down")
              ? Effect.fail(new Failure.ModelNotFound({ place, said: Failure.said("retired") }))
              : Effect.succeed(answer)
          }),
        keepsLimits: keeps.limits,
        keepsConversation: keeps.conversation
      }
    })
})

const counted = { notices: 0, writes: 0 }

const world = (
  chain: ReadonlyArray<string>,
  seen: Map<string, Seen>,
  keeps = { limits: true, conversation: false }
) => {
  const clis = [...new Set(chain.map((place) => place.slice(0, place.search(/[@/]/))))]
  const health = Layer.effect(
    Health.Health,
    Effect.map(Effect.provide(Health.Health, Health.Health.layerMemory()), (health) =>
      Health.Health.of({
        ...health,
        succeeded: (place) => Effect.andThen(Effect.sync(() => void (counted.writes += 1)), health.succeeded(place)),
        failed: (place, failed) =>
          Effect.andThen(Effect.sync(() => void (counted.writes += 1)), health.failed(place, failed))
      }))
  )
  const notices = Layer.succeed(Notice.Notices, {
    publish: () => Effect.sync(() => void (counted.notices += 1)),
    watch: Effect.succeed(Stream.empty)
  })
  const steps = Layer.effectDiscard(
    Effect.gen(function*() {
      const steps = yield* Steps.Steps
      for (let i = 1; i < chain.length; i++) yield* steps.points(chain[i - 1]!, chain[i]!)
    }).pipe(Effect.orDie)
  )
  return Layer.provideMerge(
    steps,
    Layer.mergeAll(
      Backend.Backends.layer(clis.map((cli) => replying(cli, seen, keeps))),
      Steps.Steps.layerMemory,
      health,
      notices
    )
  )
}

describe("turns answered whole", () => {
  const seen = new Map<string, Seen>()

  it.effect("a landing turn at a held session forks no fiber, opens nothing, writes no health and publishes no notice", () =>
    Effect.gen(function*() {
      const agent = yield* Agent.make("claude/a")
      expect(yield* Agent.ask(agent, "first")).toBe("ok from claude/a")
      const before = { ...counted }
      expect(yield* Fibers.started(Effect.repeat(Agent.ask(agent, "again"), { times: 99 }))).toBe(0)
      expect(counted).toEqual(before)
      expect(seen.get("claude/a")!.opens).toBe(1)
      expect(seen.has("codex/b")).toBe(false)
    }).pipe(Effect.provide(world(["claude/a", "codex/b", "gemini/c"], seen))))

  it.effect("a reply is given the first byte's 30 s, the turn's 15 min and the 2 min stall, on the Clock", () =>
    Effect.gen(function*() {
      const mine = new Map<string, Seen>()
      yield* TestClock.setTime(1_000)
      const agent = yield* Agent.make("claude/a").pipe(Effect.provide(world(["claude/a"], mine)))
      yield* Agent.ask(agent, "hi")
      expect(mine.get("claude/a")!.limits).toEqual([{ by: 31_000, whole: 901_000, deadline: 901_000, stall: 120_000 }])
      const tight = yield* Agent.make("claude/a", undefined, { send: Option.some(Duration.seconds(10)) }).pipe(
        Effect.provide(world(["claude/a"], mine))
      )
      yield* Agent.ask(tight, "hi")
      expect(mine.get("claude/a")!.limits[1]).toEqual({ by: 11_000, whole: 11_000, deadline: 901_000, stall: 120_000 })
    }))

  it.effect("a failed reply delivered nothing: the turn moves to the next place and answers there", () =>
    Effect.gen(function*() {
      const mine = new Map<string, Seen>()
      const agent = yield* Agent.make("claude/down").pipe(Effect.provide(world(["claude/down", "codex/b"], mine)))
      expect(yield* Agent.ask(agent, "hi")).toBe("ok from codex/b")
      expect(Place.format(yield* agent.at)).toBe("codex/b")
      expect(yield* Agent.ask(agent, "again")).toBe("ok from codex/b")
      expect(mine.get("claude/down")!.limits).toHaveLength(1)
    }))

  it.effect("a reply that does not keep its limits is not taken when the first byte is limited: the stream is read", () =>
    Effect.gen(function*() {
      const mine = new Map<string, Seen>()
      const agent = yield* Agent.make("claude/a").pipe(
        Effect.provide(world(["claude/a"], mine, { limits: false, conversation: false }))
      )
      expect(yield* Agent.ask(agent, "hi")).toBe("ok from claude/a")
      expect(mine.get("claude/a")!.limits).toEqual([])
    }))

  it.effect("with no first-byte limit, the engine times a reply that does not keep its limits by the deadline", () =>
    Effect.gen(function*() {
      const mine = new Map<string, Seen>()
      const agent = yield* Agent.make("claude/hang", undefined, {
        firstByte: Option.none(),
        budget: { deadline: Duration.minutes(2), attempts: 20 }
      }).pipe(Effect.provide(world(["claude/hang", "codex/b"], mine, { limits: false, conversation: false })))
      const fiber = yield* Effect.forkChild(Effect.result(Agent.ask(agent, "hi")))
      yield* TestClock.adjust("119999 millis")
      expect(fiber.pollUnsafe()).toBeUndefined()
      yield* TestClock.adjust("1 millis")
      const failed = yield* Fiber.join(fiber)
      expect(failed._tag === "Failure" && failed.failure._tag).toBe("Timeout")
      expect(mine.get("claude/hang")!.limits).toEqual([{
        by: 120_000,
        whole: 120_000,
        deadline: 120_000,
        stall: 120_000
      }])
    }))

  it.effect("the engine's timer is what costs a fiber: a reply that keeps its limits is not raced", () =>
    Effect.gen(function*() {
      const unlimited = { firstByte: Option.none() }
      const timed = yield* Agent.make("claude/a", undefined, unlimited).pipe(
        Effect.provide(world(["claude/a"], new Map(), { limits: false, conversation: false }))
      )
      const kept = yield* Agent.make("claude/a").pipe(Effect.provide(world(["claude/a"], new Map())))
      yield* Agent.ask(timed, "open")
      yield* Agent.ask(kept, "open")
      expect(yield* Fibers.started(Agent.ask(timed, "hi"))).toBeGreaterThan(0)
      expect(yield* Fibers.started(Agent.ask(kept, "hi"))).toBe(0)
    }))

  it.effect("the agent keeps the conversation for a backend that does not, and none for one that does", () =>
    Effect.gen(function*() {
      const kept = new Map<string, Seen>()
      const own = new Map<string, Seen>()
      const forgets = yield* Agent.make("claude/a").pipe(Effect.provide(world(["claude/a"], kept)))
      const remembers = yield* Agent.make("claude/a").pipe(
        Effect.provide(world(["claude/a"], own, { limits: true, conversation: true }))
      )
      for (const agent of [forgets, remembers]) {
        yield* Agent.ask(agent, "one")
        yield* Agent.ask(agent, "two")
      }
      expect(kept.get("claude/a")!.histories).toEqual([[], [{ prompt: "one", answer: "ok from claude/a" }]])
      expect(own.get("claude/a")!.histories).toEqual([[], []])
    }))
})
