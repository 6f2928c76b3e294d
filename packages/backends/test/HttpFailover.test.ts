import { describe, expect, it } from "@effect/vitest"
import * as Account from "@fallback/core/Account"
import * as Accounts from "@fallback/core/Accounts"
import * as Agent from "@fallback/core/Agent"
import * as Backend from "@fallback/core/Backend"
import * as ConfigFile from "@fallback/core/ConfigFile"
import * as Health from "@fallback/core/Health"
import * as Notice from "@fallback/core/Notice"
import * as Place from "@fallback/core/Place"
import * as Steps from "@fallback/core/Steps"
import { MockProvider } from "@fallback/testkit"
import { Duration, Effect, Layer, Option } from "effect"
import type * as HttpClient from "effect/http/HttpClient"
import * as AnthropicMessages from "../src/AnthropicMessages.js"
import * as OpenAiCompatible from "../src/OpenAiCompatible.js"
import { transports, withEnv } from "./transports.js"

const keys = withEnv({ KEY_ONE: "key-fault-unauthorized", KEY_TWO: "good-key", LOCAL_KEY: "local-key" })

/** The notices a turn published, as a person reads them. */
const heard: Array<string> = []

const notices = Layer.succeed(Notice.Notices, {
  publish: (notice) => Effect.sync(() => void heard.push(Notice.format(notice))),
  watch: Effect.die("not watched in tests")
})

/** Two HTTP providers on one mock (Anthropic Messages and OpenAI-compatible), steps and accounts. */

const world = (url: string, chain: ReadonlyArray<string>, client: Layer.Layer<HttpClient.HttpClient>) => {
  const backends = Layer.unwrap(Effect.map(
    Effect.all([
      AnthropicMessages.make({ baseUrl: url, key: { fromEnv: "KEY_TWO" } }),
      OpenAiCompatible.make({ name: "local", baseUrl: `${url}/v1`, key: { fromEnv: "LOCAL_KEY" } })
    ]),
    Backend.Backends.layer
  )).pipe(Layer.provide(client))
  const written = Layer.effectDiscard(
    Effect.gen(function*() {
      const steps = yield* Steps.Steps
      const accounts = yield* Accounts.Accounts
      for (let i = 1; i < chain.length; i++) yield* steps.points(chain[i - 1]!, chain[i]!)
      yield* accounts.add(
        "anthropic",
        new Account.Account({ name: "one", env: { KEY_TWO: { fromEnv: "KEY_ONE" } } })
      )
      yield* accounts.add("anthropic", new Account.Account({ name: "two" }))
    }).pipe(Effect.orDie)
  )
  const store = Layer.mergeAll(Steps.Steps.layer, Accounts.Accounts.layer).pipe(
    Layer.provide(ConfigFile.Store.layerMemory())
  )
  return Layer.provideMerge(written, Layer.mergeAll(backends, store, Health.Health.layerMemory(), notices))
}

describe("a turn through the engine over HTTP providers", () => {
  for (const { layer: client, name } of transports) {
    describe(name, () => {
      it.live("an Anthropic place whose model is gone fails over to a local OpenAI-compatible place", () =>
        Effect.gen(function*() {
          const mock = yield* MockProvider.make({ text: "answered locally" })
          const gone = "anthropic@two/claude-fault-model-not-found"
          const answer = yield* Effect.gen(function*() {
            const agent = yield* Agent.make(gone)
            const text = yield* Agent.ask(agent, "hello")
            return { text, at: Place.format(yield* agent.at) }
          }).pipe(Effect.provide(world(mock.url, [gone, "local/qwen3:8b"], client)))
          expect(answer).toEqual({ text: "answered locally", at: "local/qwen3:8b" })
          const counts = yield* mock.requests
          expect(counts.log.map((request) => `${request.route} ${request.model} ${request.fault}`)).toEqual([
            "anthropic claude-fault-model-not-found model-not-found",
            "chat qwen3:8b answer"
          ])
        }).pipe(keys))

      it.live("a refused key walks to the next account of the same provider, which answers, and stays there", () =>
        Effect.gen(function*() {
          const mock = yield* MockProvider.make()
          const asked = yield* Effect.gen(function*() {
            const agent = yield* Agent.make("anthropic@one/claude-x")
            yield* Agent.ask(agent, "one")
            yield* Agent.ask(agent, "two")
            return Place.format(yield* agent.at)
          }).pipe(Effect.provide(world(mock.url, [], client)))
          expect(asked).toBe("anthropic@two/claude-x")
          const counts = yield* mock.requests
          expect(counts.log.map((request) => `${request.key} ${request.fault}`)).toEqual([
            "key-fault-unauthorized unauthorized",
            "good-key answer",
            "good-key answer"
          ])
          expect(heard.at(-1)).toMatch(
            /^anthropic@one refused the credentials \(account one needs signing in again\).*carrying on as two$/
          )
          expect(heard.join("\n")).not.toContain("key-fault-unauthorized")
        }).pipe(keys))

      it.live("a reset connection is ConnectionLost: reopened and asked again at the same place", () =>
        Effect.gen(function*() {
          const mock = yield* MockProvider.make({ text: "second time lucky" })
          yield* mock.script([{ fault: "reset", times: 1 }])
          const text = yield* Effect.gen(function*() {
            const agent = yield* Agent.make("local/qwen3:8b")
            return yield* Agent.ask(agent, "hello")
          }).pipe(Effect.provide(world(mock.url, [], client)))
          expect(text).toBe("second time lucky")
          expect((yield* mock.requests).byFault).toEqual({ reset: 1, answer: 1 })
        }).pipe(keys))

      it.live("a provider that never answers is left at the first-byte timeout for the next place", () =>
        Effect.gen(function*() {
          const mock = yield* MockProvider.make({ text: "answered locally" })
          const silent = "anthropic@two/claude-fault-hang"
          const text = yield* Effect.gen(function*() {
            const agent = yield* Agent.make(silent, undefined, { firstByte: Option.some(Duration.millis(300)) })
            return yield* Agent.ask(agent, "hello")
          }).pipe(Effect.provide(world(mock.url, [silent, "local/qwen3:8b"], client)))
          expect(text).toBe("answered locally")
          expect(heard.at(-1)).toMatch(/sent nothing within .*carrying on at local\/qwen3:8b/)
          expect((yield* mock.requests).byFault).toEqual({ hang: 1, answer: 1 })
        }).pipe(keys))
    })
  }
})
