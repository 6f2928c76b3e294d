/**
 * B8 gateway: what `fallback serve`'s routes (`Gateway.layer`, served by `NodeHttpServer` in the
 * bench's process) add over calling the mock provider directly. Anthropic Messages to an Anthropic
 * place, whole and streamed: p50 and p99 at concurrency 1, req/s at concurrency 50, time to the
 * first byte of a streamed answer. Chat Completions to an OpenAI-compatible place, not streamed,
 * beside the Portkey gateway (B5's peer) doing the same. The gateway also as a person runs it: the
 * bundle's `fallback serve` in a process of its own (when the bundle is built). Every row is
 * measured in turn within each repetition, so a busy spell falls on all alike.
 *
 * Each concurrent client is a conversation of its own, as real load is: a session header per
 * client (Claude Code's `x-claude-code-session-id` on Messages, opencode's `x-session-id` on Chat),
 * the same on every request it sends, so the gateway holds one agent per client, made in the
 * warm-up round. One more row sends 50 at once in ONE conversation (no session header: the
 * conversation is named by its first messages), one agent answering them all.
 */
import { NodeHttpClient, NodeHttpServer } from "@effect/platform-node"
import * as Undici from "@effect/platform-node/Undici"
import { Accounts, ConfigFile, Health, Notice, Steps } from "@fallback/core"
import { Gateway } from "@fallback/serve"
import { MockProvider } from "@fallback/testkit"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { HttpRouter, HttpServer } from "effect/http"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as nodeHttp from "node:http"
import * as os from "node:os"
import * as path from "node:path"
import { against, type Figure, figure, repetitions } from "./figures.js"
import * as Portkey from "./portkey.js"

const sequential = Number(process.env.BENCH_SERVE_TURNS ?? 500)
const parallel = Number(process.env.BENCH_SERVE_PARALLEL_TURNS ?? 1_000)
const lanes = 50

/** The client of every row: undici's keep-alive Agent, as B5's direct client. */
export const client = new Undici.Agent()

const conversation = [{ role: "user", content: "hi" }, { role: "assistant", content: "ok" }, {
  role: "user",
  content: "hi"
}]

/** One request by the client `lane` (0 at concurrency 1); resolves with the ms to its first body byte. */
type Call = (lane: number) => Promise<number>

/** The client's session header, or none: every client in one conversation. */
type Session = string | undefined

const call = (url: string, path: string, body: object, headers: Record<string, string>, session: Session): Call => {
  const { origin } = new URL(url)
  const sent = JSON.stringify(body)
  const base = { "content-type": "application/json", ...headers }
  const byLane = Array.from(
    { length: lanes },
    (_, lane) => session === undefined ? base : { ...base, [session]: `bench-conversation-${lane}` }
  )
  return async (lane) => {
    const start = performance.now()
    const response = await client.request({ origin, path, method: "POST", headers: byLane[lane]!, body: sent })
    let first = 0
    let text = ""
    for await (const chunk of response.body) {
      if (first === 0) first = performance.now() - start
      text += chunk
    }
    if (response.statusCode >= 300) throw new Error(`${response.statusCode} ${text.slice(0, 300)}`)
    return first
  }
}

export const messages = (url: string, model: string, stream: boolean, session: Session = "x-claude-code-session-id") =>
  call(url, "/v1/messages", { model, max_tokens: 100, stream, messages: conversation }, {
    "x-api-key": "sk-ant-api03-benchbenchbench0001",
    "anthropic-version": "2023-06-01"
  }, session)

const chat = (url: string, model: string, headers: Record<string, string> = {}) =>
  call(url, "/v1/chat/completions", { model, stream: false, messages: conversation }, {
    authorization: "Bearer sk-proj-benchbenchbench0002",
    ...headers
  }, "x-session-id")

const quantile = (sorted: ReadonlyArray<number>, q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!

/** One repetition at concurrency 1: p50 and p99 of the whole request, p50 of its first byte. */
const oneAtATime = async (request: Call) => {
  const took: Array<number> = []
  const firsts: Array<number> = []
  for (let i = 0; i < sequential; i++) {
    const start = performance.now()
    firsts.push(await request(0))
    took.push(performance.now() - start)
  }
  took.sort((a, b) => a - b)
  firsts.sort((a, b) => a - b)
  return { p50: quantile(took, 0.5), p99: quantile(took, 0.99), first: quantile(firsts, 0.5) }
}

/** Requests a second with `lanes` in flight. */
const throughput = async (request: Call) => {
  let next = 0
  const start = performance.now()
  await Promise.all(Array.from({ length: lanes }, async (_, lane) => {
    while (next++ < parallel) await request(lane)
  }))
  return (parallel * 1000) / (performance.now() - start)
}

/** The gateway over the mock: places anthropic/claude-x and openai/gpt-x, each with the caller's key first. */
export const serve = async (upstream: string) => {
  const store = Layer.mergeAll(Steps.Steps.layer, Accounts.Accounts.layer).pipe(
    Layer.provide(ConfigFile.Store.layerMemory())
  )
  const silent = Layer.succeed(Notice.Notices, { publish: () => Effect.void, watch: Effect.succeed(Stream.empty) })
  const gateway = HttpRouter.serve(
    Gateway.layer({
      providers: {
        anthropic: { kind: "anthropic-messages", baseUrl: upstream, key: { fromEnv: "ANTHROPIC_API_KEY" } },
        openai: { kind: "openai-compatible", baseUrl: `${upstream}/v1`, key: { fromEnv: "OPENAI_API_KEY" } }
      }
    }),
    { disableLogger: true, disableListenLog: true }
  ).pipe(
    Layer.provideMerge(NodeHttpServer.layer(() => nodeHttp.createServer(), { port: 0, host: "127.0.0.1" })),
    Layer.provideMerge(Layer.mergeAll(store, Health.Health.layerMemory(), NodeHttpClient.layerUndici, silent)),
    Layer.provide(Layer.succeed(
      ConfigProvider.ConfigProvider,
      ConfigProvider.fromUnknown({ ANTHROPIC_API_KEY: "sk-ant-api03-own0003", OPENAI_API_KEY: "sk-proj-own0004" })
    ))
  )
  const scope = Effect.runSync(Scope.make())
  const context = await Effect.runPromise(Layer.buildWithScope(gateway, scope))
  const address = Context.get(context, HttpServer.HttpServer).address as { readonly port: number }
  return { url: `http://127.0.0.1:${address.port}`, stop: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
}

const bundle = path.resolve(import.meta.dirname, "../packages/cli/bin/fallback.js")

/** The bundle's `fallback serve --port 0 --json` over the mock, the same places; undefined when the bundle is not built. */
const served = async (upstream: string) => {
  if (!fs.existsSync(path.resolve(import.meta.dirname, "../packages/cli/dist/fallback.cjs"))) return undefined
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "bench-serve-"))
  const config = path.join(home, "config.json")
  fs.writeFileSync(
    config,
    JSON.stringify({
      providers: {
        anthropic: { kind: "anthropic-messages", baseUrl: upstream, key: { fromEnv: "ANTHROPIC_API_KEY" } },
        openai: { kind: "openai-compatible", baseUrl: `${upstream}/v1`, key: { fromEnv: "OPENAI_API_KEY" } }
      }
    })
  )
  const child = spawn(process.execPath, [bundle, "serve", "--port", "0", "--json", "--config", config], {
    env: {
      PATH: process.env.PATH ?? "",
      HOME: home,
      ANTHROPIC_API_KEY: "sk-ant-api03-own0003",
      OPENAI_API_KEY: "sk-proj-own0004"
    },
    stdio: ["ignore", "pipe", "ignore"]
  })
  let out = ""
  const url = await new Promise<string>((resolve, reject) => {
    const read = (chunk: Buffer) => {
      out += chunk
      const listening = /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(out)
      if (listening !== null) {
        child.stdout.off("data", read)
        // its log lines are read and dropped, as a terminal would take them
        child.stdout.on("data", () => {})
        resolve(listening[1]!)
      }
    }
    child.stdout.on("data", read)
    child.once("exit", (code) => reject(new Error(`fallback serve exited ${code}`)))
  })
  return {
    url,
    stop: () =>
      new Promise<void>((resolve) => {
        child.removeAllListeners("exit")
        child.once("exit", () => {
          fs.rmSync(home, { recursive: true, force: true })
          resolve()
        })
        child.kill("SIGTERM")
      })
  }
}

interface Row {
  readonly name: string
  readonly request: Call
  readonly p50: Array<number>
  readonly p99: Array<number>
  readonly first: Array<number>
  readonly rate: Array<number>
  /** Measured at concurrency 50 only (at concurrency 1 it is another row's request). */
  readonly parallelOnly: boolean
}

const row = (name: string, request: Call, parallelOnly = false): Row => ({
  name,
  request,
  p50: [],
  p99: [],
  first: [],
  rate: [],
  parallelOnly
})

/** Every row once a repetition, in turn; a warm-up round first (it opens each client's conversation). */
const measure = async (rows: ReadonlyArray<Row>) => {
  for (const each of rows) await throughput(each.request)
  for (let r = 0; r < repetitions; r++) {
    for (const each of rows) {
      if (!each.parallelOnly) {
        const { first, p50, p99 } = await oneAtATime(each.request)
        each.p50.push(p50)
        each.p99.push(p99)
        each.first.push(first)
      }
      each.rate.push(await throughput(each.request))
    }
  }
}

/** BENCH_SERVE_ROWS="streamed through": only the rows whose names contain one of these (for a profiler). */
const measured = (only: ReadonlyArray<string> | undefined) => (each: Row) =>
  only === undefined || only.some((part) => each.name.includes(part))

/** B8's figures. */
export const serveBench = async (): Promise<Array<Figure>> => {
  const mock = await MockProvider.start({ lifetime: 30 * 60_000, text: "ok" })
  const gateway = await serve(mock.url)
  const rows = [
    row("Messages direct", messages(mock.url, "claude-x", false)),
    row("Messages through the gateway", messages(gateway.url, "anthropic/claude-x", false)),
    row(
      "Messages through the gateway, one conversation",
      messages(gateway.url, "anthropic/claude-x", false, undefined),
      true
    ),
    row("Messages streamed direct", messages(mock.url, "claude-x", true)),
    row("Messages streamed through the gateway", messages(gateway.url, "anthropic/claude-x", true)),
    row("Chat direct", chat(mock.url, "gpt-x")),
    row("Chat through the gateway", chat(gateway.url, "openai/gpt-x"))
  ]
  const own = await served(mock.url).catch(() => undefined)
  if (own !== undefined) {
    rows.push(
      row("Messages through fallback serve", messages(own.url, "anthropic/claude-x", false)),
      row("Messages streamed through fallback serve", messages(own.url, "anthropic/claude-x", true))
    )
  }
  let portkey = "not measured"
  const peer = await Portkey.start().catch((error: Error) => {
    portkey = `did not start: ${error.message}`
    return undefined
  })
  if (peer !== undefined) rows.push(row("Chat through Portkey", chat(peer.url, "gpt-x", Portkey.headers(mock.url))))
  const only = process.env.BENCH_SERVE_ROWS?.split(",")
  try {
    await measure(rows.filter(measured(only)))
    if (peer !== undefined && measured(only)(rows.at(-1)!)) portkey = "measured"
  } finally {
    await peer?.stop()
    await own?.stop()
    await gateway.stop()
    await mock.stop()
    await client.close()
  }
  const taken = rows.filter(measured(only))
  const of = (name: string) => taken.find((each) => each.name === name)
  const rowsOf = (names: ReadonlyArray<string>) => names.flatMap((name) => taken.filter((each) => each.name === name))
  const whole = rowsOf(["Messages direct", "Messages through the gateway", "Messages through fallback serve"])
  const streamed = rowsOf([
    "Messages streamed direct",
    "Messages streamed through the gateway",
    "Messages streamed through fallback serve"
  ])
  const chats = taken.filter((each) => each.name.startsWith("Chat"))
  const latency = (list: ReadonlyArray<Row>, baseline: string) => {
    const sequentially = list.filter((each) => !each.parallelOnly)
    return [
      ...against(
        sequentially.map((each) => figure("B8", `${each.name}: p50 at concurrency 1`, "ms", each.p50)),
        `${baseline}: p50 at concurrency 1`
      ),
      ...against(
        sequentially.map((each) => figure("B8", `${each.name}: p99 at concurrency 1`, "ms", each.p99)),
        `${baseline}: p99 at concurrency 1`
      ),
      ...against(
        list.map((each) => figure("B8", `${each.name}: at concurrency 50`, "req/s", each.rate)),
        `${baseline}: at concurrency 50`
      )
    ]
  }
  const added = (subject: string, baseline: string, what: "p50" | "p99" | "first", label: string) => {
    const a = of(subject)
    const b = of(baseline)
    return a === undefined || b === undefined
      ? []
      : [figure("B8", label, "ms", a[what].map((value, i) => value - b[what][i]!))]
  }
  return [
    ...latency(
      [...whole, ...rowsOf(["Messages through the gateway, one conversation"])],
      "Messages direct"
    ),
    ...latency(streamed, "Messages streamed direct"),
    ...against(
      streamed.map((each) => figure("B8", `${each.name}: first byte p50`, "ms", each.first)),
      "Messages streamed direct: first byte p50"
    ),
    ...latency(chats, "Chat direct"),
    ...added("Messages through the gateway", "Messages direct", "p50", "added by the gateway, Messages: p50"),
    ...added("Messages through the gateway", "Messages direct", "p99", "added by the gateway, Messages: p99"),
    ...added(
      "Messages streamed through the gateway",
      "Messages streamed direct",
      "first",
      "added by the gateway, Messages streamed: first byte"
    ),
    ...added("Chat through the gateway", "Chat direct", "p50", "added by the gateway, Chat: p50"),
    ...added("Messages through fallback serve", "Messages direct", "p50", "added by fallback serve, Messages: p50"),
    ...added(
      "Messages streamed through fallback serve",
      "Messages streamed direct",
      "first",
      "added by fallback serve, Messages streamed: first byte"
    ),
    ...(portkey === "measured"
      ? added("Chat through Portkey", "Chat direct", "p50", "added by Portkey, Chat not streamed: p50")
      : [figure("B8", "Portkey gateway", "", [0], portkey)]),
    figure("B8", "LiteLLM, as stated: added latency", "ms", [3.25], "stated by LiteLLM, not measured here"),
    figure("B8", "Portkey, as stated: added latency", "ms", [1], "stated as \"under 1 ms\", not measured here")
  ]
}
