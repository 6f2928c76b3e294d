import * as http from "node:http"

import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as Accounts from "@fallback/core/Accounts"
import type * as Agent from "@fallback/core/Agent"
import * as ConfigFile from "@fallback/core/ConfigFile"
import * as Health from "@fallback/core/Health"
import * as Notice from "@fallback/core/Notice"
import * as Place from "@fallback/core/Place"
import * as Secret from "@fallback/core/Secret"
import * as Steps from "@fallback/core/Steps"
import * as Gateway from "@fallback/serve/Gateway"
import * as MockProvider from "@fallback/testkit/MockProvider"
import * as Config from "effect/Config"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Console from "effect/Console"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServer from "effect/http/HttpServer"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Path from "effect/Path"
import * as Redacted from "effect/Redacted"
import * as Result from "effect/Result"
import * as Stream from "effect/Stream"

import { editing } from "./config.js"
import { ofNotice, write } from "./runJson.js"
import { runOptions } from "./runOptions.js"
import type { ServeFlags } from "./serve.js"
import * as Demo from "./serveDemo.js"
import { InvalidServe, stopsOnSignal, Unprotected } from "./serveErrors.js"
import { requestLine } from "./serveLog.js"
import { health } from "./status.js"

/** Loopback: this machine only. Anything else is reachable from elsewhere and needs a token. */
const loopback = (host: string) => host === "localhost" || host === "::1" || /^127(?:\.\d{1,3}){3}$/.test(host)

/** The token clients must send: from the variable --token-env names; required beyond loopback. */
const tokenOf = (flags: ServeFlags, host: string) =>
  Effect.gen(function*() {
    if (Option.isNone(flags.tokenEnv)) {
      return loopback(host) ? undefined : yield* new Unprotected({ host })
    }
    const name = flags.tokenEnv.value
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
      return yield* new InvalidServe({
        reason: `--token-env ${JSON.stringify(name)}: give the NAME of an environment variable (letters, digits and ` +
          `"_"), not the token itself: export FALLBACK_TOKEN=…; fallback serve --token-env FALLBACK_TOKEN`
      })
    }
    const value = yield* Config.option(Config.Redacted(name)).pipe(Effect.orElseSucceed(() => Option.none()))
    const token = Option.filter(value, (v) => Redacted.value(v).trim() !== "")
    if (Option.isNone(token)) {
      return yield* new InvalidServe({
        reason: `--token-env ${name}: the variable ${name} is not set or empty; export ${name}=<a long random ` +
          `token> (openssl rand -hex 32) and give clients the same`
      })
    }
    Secret.hold(Redacted.value(token.value))
    return token.value
  })

/** What a gateway serves here: its options but the log, and the world its routes need. */
interface Setup {
  readonly options: Omit<Gateway.Options, "log">
  readonly world: Layer.Layer<
    Steps.Steps | Accounts.Accounts | Health.Health,
    { readonly message: string },
    FileSystem.FileSystem | Path.Path
  >
  readonly told?: string | undefined
}

/** The config's providers, steps, accounts, aliases and health, as `run` reads them. */
const fromConfig = (flags: ServeFlags) =>
  Effect.gen(function*() {
    const store = yield* ConfigFile.Store
    const document = yield* store.read
    const file = Option.getOrElse(store.file, () => "the config")
    const providers = Object.keys(document.providers)
    if (providers.length === 0) {
      return yield* new InvalidServe({
        reason: `${file} has no providers, and fallback serve answers at providers' places (PROVIDER/MODEL): add ` +
          `one under "providers", e.g. "anthropic": { "kind": "anthropic-messages", "baseUrl": ` +
          `"https://api.anthropic.com", "key": { "fromEnv": "ANTHROPIC_API_KEY" } }; or try fallback serve --demo`
      })
    }
    for (const [alias, target] of Object.entries(document.aliases ?? {})) {
      const place = Result.getOrThrow(Place.parse(target))
      if (!providers.includes(place.cli)) {
        return yield* new InvalidServe({
          reason: `${file}: aliases[${JSON.stringify(alias)}] is ${target}, a place at the CLI ${place.cli}; ` +
            `fallback serve answers only at providers' places (${providers.join(", ")}): name one of theirs`
        })
      }
    }
    const preset = Option.some(Option.getOrElse(flags.preset, () => document.run?.preset ?? "api"))
    const none = Option.none()
    const { chosen, options } = yield* runOptions(
      { preset, firstByte: none, stall: none, idle: none, deadline: none, attempts: none },
      document
    )
    const setup: Setup = {
      options: {
        providers: document.providers,
        aliases: document.aliases,
        passThrough: !flags.noPassThrough,
        agent: { options: { ...options, moved: "stays" } }
      },
      world: health(chosen.breaker).pipe(Layer.provideMerge(editing(flags.config)))
    }
    return setup
  }).pipe(Effect.provide(editing(flags.config)))

/** The demo's: the mock on loopback playing an outage, and a config of its own in memory. */
const demo = Effect.gen(function*() {
  const mock = yield* MockProvider.make({ lifetime: Duration.toMillis(Duration.hours(24)) })
  yield* mock.script(Demo.outage)
  const document = Demo.document(mock.url)
  const store = ConfigFile.Store.layerMemory(document)
  const setup: Setup = {
    options: {
      providers: document.providers,
      aliases: document.aliases,
      passThrough: false,
      agent: { options: { answers: Demo.answers } satisfies Partial<Agent.Options> }
    },
    world: Layer.mergeAll(Steps.Steps.layer, Accounts.Accounts.layer, Health.Health.layerMemory()).pipe(
      Layer.provide(store)
    ),
    told: Demo.story(mock.url)
  }
  return setup
})

const portTaken = (port: number, host: string, cause: unknown): InvalidServe => {
  const code = (cause as NodeJS.ErrnoException | undefined)?.code
  const at = `${host}:${port}`
  return new InvalidServe({
    reason: code === "EADDRINUSE"
      ? `--port ${port}: ${at} is taken (another fallback serve?); give another port with --port N, or --port 0 for any free one`
      : code === "EACCES"
      ? `--port ${port}: listening on ${at} is not allowed for this user; give a port above 1023`
      : code === "EADDRNOTAVAIL" || code === "ENOTFOUND"
      ? `--host ${host}: not an address of this machine; give one it has (127.0.0.1, or 0.0.0.0 for all)`
      : `cannot listen on ${at}: ${String((cause as Error | undefined)?.message ?? cause)}`
  })
}

/** The line a person reads on start: where it listens, and the one variable each client takes. */
const startLine = (url: string, json: boolean) =>
  json
    ? JSON.stringify({
      type: "listening",
      url,
      claude: `ANTHROPIC_BASE_URL=${url}`,
      codex: `codex -c openai_base_url="${url}/v1"`,
      openai: `${url}/v1`
    })
    : `fallback serve: listening on ${url}; Claude Code: ANTHROPIC_BASE_URL=${url} claude; ` +
      `Codex: codex -c openai_base_url="${url}/v1"; SDKs: base URL ${url} (Anthropic), ${url}/v1 (OpenAI)`

/** @internal */
export const serving = (flags: ServeFlags) =>
  Effect.gen(function*() {
    const host = Option.getOrElse(flags.host, () => "127.0.0.1")
    const port = flags.port
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      return yield* new InvalidServe({ reason: `--port ${port}: a port is 0 (any free one) to 65535` })
    }
    // refused before any config is read or anything bound
    const token = yield* tokenOf(flags, host)
    return yield* flags.demo
      ? listen(flags, host, port, token, demo).pipe(
        Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromUnknown(Demo.keys))
      )
      : listen(flags, host, port, token, fromConfig(flags))
  })

const listen = <E, R>(
  flags: ServeFlags,
  host: string,
  port: number,
  token: Redacted.Redacted | undefined,
  made: Effect.Effect<Setup, E, R>
) =>
  Effect.gen(function*() {
    const setup = yield* made
    const console = yield* Console.Console
    const said = (line: string) => Effect.sync(() => flags.json ? console.log(line) : console.error(line))
    const notices = yield* Notice.Notices
    const watching = yield* notices.watch
    yield* watching.pipe(
      Stream.runForEach((notice) => said(flags.json ? write(ofNotice(notice)) : Notice.format(notice))),
      Effect.forkScoped
    )
    const gateway = HttpRouter.serve(
      Gateway.layer({
        ...setup.options,
        token,
        log: (line) => said(flags.json ? JSON.stringify({ type: "request", ...line }) : requestLine(line))
      }),
      { disableLogger: true, disableListenLog: true }
    ).pipe(
      Layer.provideMerge(NodeHttpServer.layer(() => http.createServer(), { port, host })),
      Layer.provide(Layer.mergeAll(setup.world, NodeHttpClient.layerUndici, Layer.succeed(Notice.Notices, notices)))
    )
    const built = yield* Layer.build(gateway).pipe(
      Effect.catchTag("ServeError", (error) => Effect.fail(portTaken(port, host, error.cause)))
    )
    const address = Context.get(built, HttpServer.HttpServer).address
    const bound = "port" in address ? address.port : port
    const url = `http://${host.includes(":") ? `[${host}]` : host}:${bound}`
    if (setup.told !== undefined && !flags.json) yield* Console.log(setup.told)
    yield* Console.log(startLine(url, flags.json))
    stopsOnSignal.cleanly = true
    return yield* Effect.never
  }).pipe(Effect.scoped, Effect.provide(Notice.Notices.layer))
