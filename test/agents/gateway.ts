/**
 * The gateway the agents suite points the real CLIs at: `Gateway.layer` from @fallback/serve
 * served on 127.0.0.1 in the test process, over the mock provider, with two providers (Anthropic
 * Messages and an OpenAI-compatible server, both the mock), a second account of each, the chains
 * and aliases a test gives, and answers that walk on at once (no wall-clock waits).
 */
import { NodeHttpClient, NodeHttpServer } from "@effect/platform-node"
import { Accounts, Answer, ConfigFile, Health, Notice, Steps } from "@fallback/core"
import { Gateway } from "@fallback/serve"
import { ConfigProvider, Context, Duration, Effect, Exit, Layer, Scope } from "effect"
import { HttpRouter, HttpServer } from "effect/http"
import * as http from "node:http"

/** The keys the gateway's own accounts read: each provider's, and a second account (`work`) of each. */
export const secrets = {
  ANTHROPIC_API_KEY: "sk-ant-api03-gatewayOWNsecretsecret0001",
  ANTHROPIC_KEY_WORK: "sk-ant-api03-gatewayWORKsecretsecret0002",
  OPENAI_API_KEY: "sk-proj-gatewayOWNsecretsecretsecret0003",
  OPENAI_KEY_WORK: "sk-proj-gatewayWORKsecretsecretsecret0004"
}

/** A rate limit or an overload walks on at once (its cooldown kept), so a test never waits on the clock. */
const answers = Answer.override(Answer.primary, {
  RateLimited: new Answer.Answer({ accounts: true, places: true, cooldown: Duration.seconds(30) }),
  QuotaExhausted: new Answer.Answer({ accounts: true, places: true, cooldown: Duration.seconds(30) })
})

const notices = Layer.succeed(Notice.Notices, {
  publish: () => Effect.void,
  watch: Effect.die("not watched in the agents suite")
})

/** A gateway running in this process. */
export interface Running {
  readonly url: string
  readonly lines: ReadonlyArray<Gateway.Logged>
  readonly stop: () => Promise<void>
}

/**
 * Serves the gateway over the mock at `upstream`: `chains` as `[from, to]` steps, `aliases` from
 * the model names the CLIs send to places.
 */
export const start = async (options: {
  readonly upstream: string
  readonly chains: ReadonlyArray<readonly [string, string]>
  readonly aliases: Readonly<Record<string, string>>
}): Promise<Running> => {
  const lines: Array<Gateway.Logged> = []
  const store = Layer.mergeAll(Steps.Steps.layer, Accounts.Accounts.layer).pipe(
    Layer.provide(ConfigFile.Store.layerMemory())
  )
  const world = Layer.mergeAll(store, Health.Health.layerMemory(), NodeHttpClient.layerUndici, notices)
  const gateway = HttpRouter.serve(
    Gateway.layer({
      providers: {
        anthropic: { kind: "anthropic-messages", baseUrl: options.upstream, key: { fromEnv: "ANTHROPIC_API_KEY" } },
        openai: { kind: "openai-compatible", baseUrl: `${options.upstream}/v1`, key: { fromEnv: "OPENAI_API_KEY" } }
      },
      aliases: options.aliases,
      agent: { options: { answers } },
      log: (line) => Effect.sync(() => void lines.push(line))
    }),
    { disableLogger: true, disableListenLog: true }
  ).pipe(
    Layer.provideMerge(NodeHttpServer.layer(() => http.createServer(), { port: 0, host: "127.0.0.1" })),
    Layer.provideMerge(world),
    Layer.provide(Layer.succeed(ConfigProvider.ConfigProvider, ConfigProvider.fromUnknown(secrets)))
  )
  const scope = Effect.runSync(Scope.make())
  const url = await Effect.runPromise(Effect.gen(function*() {
    const context = yield* Layer.buildWithScope(gateway, scope)
    const steps = Context.get(context, Steps.Steps)
    const accounts = Context.get(context, Accounts.Accounts)
    for (const [from, to] of options.chains) yield* Effect.orDie(steps.points(from, to))
    yield* Effect.orDie(accounts.add(
      "anthropic",
      new ConfigFile.Account({ name: "work", env: { ANTHROPIC_API_KEY: { fromEnv: "ANTHROPIC_KEY_WORK" } } })
    ))
    yield* Effect.orDie(accounts.add(
      "openai",
      new ConfigFile.Account({ name: "work", env: { OPENAI_API_KEY: { fromEnv: "OPENAI_KEY_WORK" } } })
    ))
    const address = Context.get(context, HttpServer.HttpServer).address as { readonly port: number }
    return `http://127.0.0.1:${address.port}`
  }))
  return { url, lines, stop: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
}
