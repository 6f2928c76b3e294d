/**
 * The gateway the agents suite points the real CLIs at, over the mock provider, with two providers
 * (Anthropic Messages and an OpenAI-compatible server, both the mock), a second account of each,
 * and the chains and aliases a test gives: `fallback serve` from the bundle, as a person runs it
 * (a config file, `--port 0 --json`, its `api` preset), or with `FALLBACK_AGENTS_GATEWAY=library`
 * `Gateway.layer` from @fallback/serve served in the test process, with answers that walk on at once.
 */
import { NodeHttpClient, NodeHttpServer } from "@effect/platform-node"
import { Accounts, Answer, ConfigFile, Health, Notice, Steps } from "@fallback/core"
import { Gateway } from "@fallback/serve"
import { ConfigProvider, Context, Duration, Effect, Exit, Layer, Scope } from "effect"
import { HttpRouter, HttpServer } from "effect/http"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as http from "node:http"
import * as os from "node:os"
import * as path from "node:path"

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

/** What a gateway of a test serves: `chains` as `[from, to]` steps, `aliases` from the names the CLIs send to places. */
export interface Served {
  readonly upstream: string
  readonly chains: ReadonlyArray<readonly [string, string]>
  readonly aliases: Readonly<Record<string, string>>
}

const bundle = path.resolve(import.meta.dirname, "../../packages/cli/bin/fallback.js")

/** Which gateway the suite drives: the bundle's `fallback serve` unless told `library`. */
export const which: "bundle" | "library" = process.env.FALLBACK_AGENTS_GATEWAY === "library" ? "library" : "bundle"

/** Serves the gateway over the mock at `upstream`, the bundle's or the library's. */
export const start = (options: Served): Promise<Running> => which === "library" ? inProcess(options) : serve(options)

const work = (variable: string, from: string) => ({
  name: "work",
  env: { [variable]: { fromEnv: from } }
})

/** `fallback serve --port 0 --json --config F` from the bundle, the keys in its environment; stopped by SIGTERM. */
const serve = async (options: Served): Promise<Running> => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "agents-fallback-serve-"))
  const config = path.join(home, "config.json")
  fs.writeFileSync(
    config,
    JSON.stringify({
      providers: {
        anthropic: { kind: "anthropic-messages", baseUrl: options.upstream, key: { fromEnv: "ANTHROPIC_API_KEY" } },
        openai: { kind: "openai-compatible", baseUrl: `${options.upstream}/v1`, key: { fromEnv: "OPENAI_API_KEY" } }
      },
      accounts: {
        anthropic: [work("ANTHROPIC_API_KEY", "ANTHROPIC_KEY_WORK")],
        openai: [work("OPENAI_API_KEY", "OPENAI_KEY_WORK")]
      },
      steps: Object.fromEntries(options.chains.map(([from, to]) => [from, { to }])),
      aliases: options.aliases
    })
  )
  const child = spawn(process.execPath, [bundle, "serve", "--port", "0", "--json", "--config", config], {
    env: { PATH: process.env.PATH ?? "", HOME: home, ...secrets },
    stdio: ["ignore", "pipe", "pipe"]
  })
  const lines: Array<Gateway.Logged> = []
  let [out, err] = ["", ""]
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on("data", (chunk) => {
      out += chunk
      const listening = /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(out)
      if (listening !== null) resolve(listening[1]!)
    })
    child.stderr.on("data", (chunk) => (err += chunk))
    child.on("exit", (code) => reject(new Error(`fallback serve exited ${code}: ${err}${out}`)))
  })
  const read = () => {
    lines.length = 0
    for (const line of out.split("\n")) {
      try {
        const value = JSON.parse(line) as Gateway.Logged & { readonly type?: string }
        if (typeof value.status === "number") lines.push(value)
      } catch {
        // not a JSON line
      }
    }
  }
  child.stdout.on("data", read)
  return {
    url,
    lines,
    stop: () =>
      new Promise((resolve) => {
        child.removeAllListeners("exit")
        child.once("exit", () => {
          fs.rmSync(home, { recursive: true, force: true })
          resolve()
        })
        child.kill("SIGTERM")
      })
  }
}

/** `Gateway.layer` served by `NodeHttpServer` in this process. */
const inProcess = async (options: Served): Promise<Running> => {
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
