import { NodeHttpClient } from "@effect/platform-node"
import { Accounts, Backend, ConfigFile, Health, Notice, Steps } from "@fallback/core"
import { MockProvider } from "@fallback/testkit"
import { ConfigProvider, Effect, Layer } from "effect"

import { AiPlace, AnthropicLanguageModel, OpenAiLanguageModel } from "../src/index.js"

/** The keys the tests' accounts read; none of them may ever show in a failure or a notice. */
export const secrets = {
  ANTHROPIC_API_KEY: "sk-ant-api03-WORKsecretsecretsecret0001",
  ANTHROPIC_KEY_HOME: "sk-ant-api03-HOMEsecretsecretsecret0002",
  OPENAI_API_KEY: "sk-proj-secretsecretsecretsecret0003"
}

/** The keys as the config provider the tests' calls read them from. */
export const keys = ConfigProvider.fromUnknown(secrets)

/** The tests' calls, with their keys read from {@link keys}. */
export const withKeys = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.provideService(effect, ConfigProvider.ConfigProvider, keys)

/** A mock provider made with `options`, scripted with `rules`. */
export const mocked = (rules: ReadonlyArray<MockProvider.Rule>, options?: MockProvider.Options) =>
  Effect.tap(MockProvider.make(options), (mock) => mock.script(rules))

/** Builds of each registered layer, by CLI and model. */
export const builds: Array<string> = []

/** fallback's own Anthropic Messages model on the mock, as the CLI `anthropic`. */
export const anthropic = (url: string) =>
  AiPlace.make({
    cli: "anthropic",
    key: "ANTHROPIC_API_KEY",
    models: [{ name: "claude-x", contextWindow: 200_000 }],
    layer: ({ key, model }) =>
      Layer.effectDiscard(Effect.sync(() => builds.push(`anthropic/${model}`))).pipe(
        Layer.provideMerge(AnthropicLanguageModel.layer({ model, apiKey: key, baseUrl: url }))
      )
  })

/** fallback's own OpenAI model (the Responses API) on the mock, as the CLI `openai`. */
export const openai = (url: string) =>
  AiPlace.make({
    cli: "openai",
    key: "OPENAI_API_KEY",
    layer: ({ key, model }) =>
      Layer.effectDiscard(Effect.sync(() => builds.push(`openai/${model}`))).pipe(
        Layer.provideMerge(OpenAiLanguageModel.layer({ model, apiKey: key, baseUrl: `${url}/v1` }))
      )
  })

/** The notices published, as a person reads them. */
export const heard: Array<Notice.Notice> = []

export const notices = Layer.succeed(Notice.Notices, {
  publish: (notice) => Effect.sync(() => void heard.push(notice)),
  watch: Effect.die("not watched in tests")
})

/**
 * Two `effect/ai` providers on one mock (Anthropic and OpenAI's Responses API), as the CLIs
 * `anthropic` and `openai`, with more backends if given; the chain written as steps; the
 * anthropic accounts `work` and `home`.
 */
export const world = (
  url: string,
  chain: ReadonlyArray<string>,
  more: ReadonlyArray<Effect.Effect<Backend.Backend, never, any>> = [],
  withAccounts = false
) => {
  const backends = Layer.unwrap(
    Effect.map(Effect.all([anthropic(url), openai(url), ...more]), Backend.Backends.layer)
  )
    .pipe(Layer.provide(NodeHttpClient.layerUndici))
  const written = Layer.effectDiscard(
    Effect.gen(function*() {
      const steps = yield* Steps.Steps
      const accounts = yield* Accounts.Accounts
      for (let i = 1; i < chain.length; i++) yield* steps.points(chain[i - 1]!, chain[i]!)
      if (!withAccounts) return
      yield* accounts.add("anthropic", new ConfigFile.Account({ name: "work" }))
      yield* accounts.add(
        "anthropic",
        new ConfigFile.Account({ name: "home", env: { ANTHROPIC_API_KEY: { fromEnv: "ANTHROPIC_KEY_HOME" } } })
      )
    }).pipe(Effect.orDie)
  )
  const store = Layer.mergeAll(Steps.Steps.layer, Accounts.Accounts.layer).pipe(
    Layer.provide(ConfigFile.Store.layerMemory())
  )
  return Layer.fresh(
    Layer.provideMerge(written, Layer.mergeAll(backends, store, Health.Health.layerMemory(), notices))
  )
}
