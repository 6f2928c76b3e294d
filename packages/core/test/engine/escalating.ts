/** The world of the escalating preset's tests (reference 002): its places, their models and how a turn is taken. */
import { Scripted } from "@fallback/testkit"
import { Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { Agent, Preset } from "../../src/index.js"
import { type Setup, world } from "./world.js"

export const [a, a2, s, b] = ["claude/a", "claude/a2", "gemini/s", "codex/b"]
export const capabilities = {
  claude: { models: [{ name: "a", provider: "anthropic" }, { name: "a2", provider: "anthropic" }] },
  gemini: { models: [{ name: "s", provider: "google", contextWindow: 10 }] },
  codex: { models: [{ name: "b", provider: "openai", contextWindow: 200_000 }] }
}

export const escalating = (setup: Omit<Setup, "breaker">) =>
  world({ ...setup, script: { capabilities, ...setup.script }, breaker: Preset.escalating.breaker })

export const turn = (prompt = "hello", options: Partial<Agent.Options> = {}) =>
  Effect.gen(function*() {
    const agent = yield* Agent.make(a, undefined, { ...Preset.escalating.options, ...options })
    const fiber = yield* Effect.forkChild(Agent.ask(agent, prompt))
    yield* TestClock.adjust("1 hour")
    return yield* Fiber.await(fiber)
  })

export const seen = (place: string) => Effect.map(Scripted.Scripted, (scripted) => scripted.seen(place))
