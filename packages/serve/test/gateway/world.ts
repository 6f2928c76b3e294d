import Anthropic from "@anthropic-ai/sdk"
import { NodeHttpClient, NodeHttpServer } from "@effect/platform-node"
import { expect } from "@effect/vitest"
import { Accounts, Answer, ConfigFile, Health, Notice, Steps } from "@fallback/core"
import { MockProvider } from "@fallback/testkit"
import { ConfigProvider, Context, Duration, Effect, Layer } from "effect"
import { HttpRouter, HttpServer } from "effect/http"
import * as http from "node:http"
import OpenAI from "openai"

import * as Gateway from "../../src/Gateway.js"

/** The keys the places' accounts read: the config's own (`work`'s is overloaded upstream). */
export const secrets = {
  ANTHROPIC_API_KEY: "sk-ant-api03-OWNsecretsecretsecret0001",
  ANTHROPIC_KEY_WORK: "key-fault-overloaded",
  OPENAI_API_KEY: "sk-proj-secretsecretsecretsecret0003"
}

/** Answers with no waits at a place: a rate limit walks on at once (its cooldown kept), so nothing waits on the wall clock. */
export const answers = Answer.override(Answer.primary, {
  RateLimited: new Answer.Answer({ accounts: true, places: true, cooldown: Duration.seconds(30) }),
  QuotaExhausted: new Answer.Answer({ accounts: true, places: true, cooldown: Duration.seconds(30) })
})

/** The notices the gateway's agents published. */
export const heard: Array<Notice.Notice> = []

const notices = Layer.succeed(Notice.Notices, {
  publish: (notice) => Effect.sync(() => void heard.push(notice)),
  watch: Effect.die("not watched in tests")
})

/** The providers of the tests: Anthropic Messages and an OpenAI-compatible server, both on the mock. */
export const providers = (url: string): Gateway.Options["providers"] => ({
  anthropic: {
    kind: "anthropic-messages",
    baseUrl: url,
    key: { fromEnv: "ANTHROPIC_API_KEY" },
    models: [{ name: "claude-x" }]
  },
  openai: {
    kind: "openai-compatible",
    baseUrl: `${url}/v1`,
    key: { fromEnv: "OPENAI_API_KEY" },
    models: [{ name: "gpt-x" }]
  }
})

export interface Served {
  readonly url: string
  readonly mock: MockProvider.Service
  readonly lines: Array<Gateway.Logged>
}

/**
 * The gateway on 127.0.0.1 over a mock upstream: the chain anthropic/claude-x → openai/gpt-x,
 * the anthropic account `work` after the caller's own key.
 */
export const served = (
  options: Partial<Gateway.Options> = {},
  chain: ReadonlyArray<string> = ["anthropic/claude-x", "openai/gpt-x"]
) =>
  Effect.gen(function*() {
    const mock = yield* MockProvider.make({ bodies: true, text: "the answer" })
    const lines: Array<Gateway.Logged> = []
    const store = Layer.mergeAll(Steps.Steps.layer, Accounts.Accounts.layer).pipe(
      Layer.provide(ConfigFile.Store.layerMemory())
    )
    const world = Layer.mergeAll(store, Health.Health.layerMemory(), NodeHttpClient.layerUndici, notices)
    const gateway = HttpRouter.serve(
      Gateway.layer({
        providers: providers(mock.url),
        agent: { options: { answers } },
        log: (line) => Effect.sync(() => void lines.push(line)),
        ...options
      }),
      { disableLogger: true, disableListenLog: true }
    ).pipe(
      Layer.provideMerge(NodeHttpServer.layer(() => http.createServer(), { port: 0, host: "127.0.0.1" })),
      Layer.provideMerge(world),
      Layer.provide(Layer.succeed(ConfigProvider.ConfigProvider, ConfigProvider.fromUnknown(secrets)))
    )
    const context = yield* Layer.build(gateway)
    const steps = Context.get(context, Steps.Steps)
    const accounts = Context.get(context, Accounts.Accounts)
    for (let i = 1; i < chain.length; i++) yield* Effect.orDie(steps.points(chain[i - 1]!, chain[i]!))
    yield* Effect.orDie(accounts.add(
      "anthropic",
      new ConfigFile.Account({ name: "work", env: { ANTHROPIC_API_KEY: { fromEnv: "ANTHROPIC_KEY_WORK" } } })
    ))
    const server = Context.get(context, HttpServer.HttpServer)
    const address = server.address as { readonly port: number }
    return { url: `http://127.0.0.1:${address.port}`, mock, lines } satisfies Served
  })

/** The Anthropic SDK pointed at the gateway, with the caller's key. */
export const anthropicClient = (url: string, apiKey = "sk-ant-api03-CALLERsecretsecret0009") =>
  new Anthropic({ baseURL: url, apiKey, maxRetries: 0 })
/** The openai SDK pointed at the gateway, with the caller's key. */
export const openaiClient = (url: string, apiKey = "sk-proj-CALLERsecretsecretsecret0010") =>
  new OpenAI({ baseURL: `${url}/v1`, apiKey, maxRetries: 0 })

/** No key of the tests (but the mock's fault names) in a text. */
export const noSecretIn = (text: string) => {
  for (const secret of [...Object.values(secrets), "CALLERsecret"]) {
    if (!secret.startsWith("key-fault")) expect(text).not.toContain(secret)
  }
}

/** A chat request to the gateway the caller hangs up by `abort()`; `sent` settles after (once its first chunk is read, with `read`). */
export const held = (
  url: string,
  body: Record<string, unknown>,
  options: { readonly headers?: Record<string, string>; readonly read?: boolean } = {}
) => {
  const abort = new AbortController()
  const sent = fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    signal: abort.signal,
    headers: { "content-type": "application/json", ...options.headers },
    body: JSON.stringify({ ...body, messages: [{ role: "user", content: "hi" }] })
  }).then((response): unknown => options.read === true ? response.body?.getReader().read() : response)
    .catch(() => undefined)
  return { abort: () => abort.abort(), sent }
}

/** Waits until the mock got `count` requests. */
export const untilAsked = (mock: MockProvider.Service, count: number) =>
  Effect.gen(function*() {
    while ((yield* mock.requests).total < count) yield* Effect.sleep("10 millis")
  })

/** Waits until the gateway logged `count` lines. */
export const untilLogged = (lines: ReadonlyArray<Gateway.Logged>, count: number) =>
  Effect.gen(function*() {
    while (lines.length < count) yield* Effect.sleep("10 millis")
  })

/**
 * Hangs up `request` once the mock got `count` requests, and gives how the last of them ended
 * once the mock saw it end.
 */
export const hungUp = (mock: MockProvider.Service, request: ReturnType<typeof held>, count = 1) =>
  Effect.gen(function*() {
    yield* untilAsked(mock, count)
    request.abort()
    yield* Effect.promise(() => request.sent)
    while ((yield* mock.requests).log[count - 1]!.ended === "pending") yield* Effect.sleep("10 millis")
    return (yield* mock.requests).log[count - 1]!.ended
  })
