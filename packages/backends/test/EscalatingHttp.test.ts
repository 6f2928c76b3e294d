/**
 * The escalating preset (reference 002) against real HTTP providers: the testkit's loopback mock
 * on 127.0.0.1, an Anthropic Messages place and a local OpenAI-compatible one. Bounded by counts.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Agent from "@fallback/core/Agent"
import * as Backend from "@fallback/core/Backend"
import * as Health from "@fallback/core/Health"
import * as Notice from "@fallback/core/Notice"
import * as Place from "@fallback/core/Place"
import * as Preset from "@fallback/core/Preset"
import * as Steps from "@fallback/core/Steps"
import { MockProvider } from "@fallback/testkit"
import { Effect, Layer } from "effect"
import * as AnthropicMessages from "../src/AnthropicMessages.js"
import * as OpenAiCompatible from "../src/OpenAiCompatible.js"
import { type Transport, transports, withEnv } from "./transports.js"

const keys = withEnv({ KEY: "good-key", LOCAL_KEY: "local-key" })

const world = (url: string, chain: ReadonlyArray<string>, transport: Transport) => {
  const backends = Layer.unwrap(Effect.map(
    Effect.all([
      AnthropicMessages.make({ baseUrl: url, key: { fromEnv: "KEY" } }),
      OpenAiCompatible.make({ name: "local", baseUrl: `${url}/v1`, key: { fromEnv: "LOCAL_KEY" } })
    ]),
    Backend.Backends.layer
  )).pipe(Layer.provide(transport.layer))
  const written = Layer.effectDiscard(
    Effect.flatMap(
      Steps.Steps,
      (steps) => Effect.orDie(Effect.forEach(chain.slice(1), (to, i) => steps.points(chain[i]!, to)))
    )
  )
  const notices = Layer.succeed(Notice.Notices, { publish: () => Effect.void, watch: Effect.die("not watched") })
  return Layer.provideMerge(
    written,
    Layer.mergeAll(backends, Steps.Steps.layerMemory, Health.Health.layerMemory(Preset.escalating.breaker), notices)
  )
}

describe("the escalating preset over HTTP providers", () => {
  // 002, "Rate limit | Register a 30-minute cooldown, retry the same model after 5 s, 10 s, then 15 s;
  // then switch": the provider's Retry-After (30 s) is longer than the first wait, so the model is
  // switched at once, not waited on for 30 s and asked again.
  for (const transport of transports) {
    it.live(`${transport.name}: a 429 asking for 30 s switches at once to the next model, and cools the first for 30 min`, () =>
      Effect.gen(function*() {
        const mock = yield* MockProvider.make({ text: "answered locally", retryAfter: 30 })
        const limited = "anthropic/claude-fault-rate-limit"
        const answer = yield* Effect.gen(function*() {
          const agent = yield* Agent.make(limited, undefined, Preset.escalating.options)
          const text = yield* Agent.ask(agent, "hello")
          const [entry] = yield* Effect.flatMap(Health.Health, (health) => health.snapshot)
          return { text, at: Place.format(yield* agent.at), cooling: entry?.coolingUntil._tag }
        }).pipe(Effect.provide(world(mock.url, [limited, "local/qwen3:8b"], transport)))
        expect(answer).toEqual({ text: "answered locally", at: "local/qwen3:8b", cooling: "Some" })
        const counts = yield* mock.requests
        expect(counts.log.filter((request) => request.route !== "models").map((request) => request.fault)).toEqual([
          "rate-limit",
          "answer"
        ])
      }).pipe(keys))
  }
})
