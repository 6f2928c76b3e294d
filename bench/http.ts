/**
 * B5 HTTP: a Chat Completions turn through the mock provider on 127.0.0.1: direct (undici), through
 * fallback (an OpenAI-compatible place), through fallback when the first place answers 429, and the
 * same through the Portkey gateway. Latency at concurrency 1 (p50), throughput at concurrency 50.
 * Portkey 1.15.2 on Node 20 answers every streamed request 500 (its `updateHeaders` appends to a
 * fetch Response's immutable headers: "TypeError: immutable"), so it is measured not streamed,
 * beside direct requests not streamed.
 */
import { NodeHttpClient } from "@effect/platform-node"
import * as Undici from "@effect/platform-node/Undici"
import { HttpProvider, OpenAiCompatible } from "@fallback/backends"
import { Agent, Answer, Backend, Health, Notice, Steps } from "@fallback/core"
import { MockProvider } from "@fallback/testkit"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { against, type Figure, figure, repetitions, spread } from "./figures.js"
import * as Portkey from "./portkey.js"

const sequential = Number(process.env.BENCH_HTTP_TURNS ?? 200)
const parallel = Number(process.env.BENCH_HTTP_PARALLEL_TURNS ?? 1_000)
const lanes = 50

/** One turn as a promise. */
type Turn = () => Promise<unknown>

/** Makes `count` turns ready to take, the i-th as `turn(i)`, before the clock starts. */
type Turns = (count: number) => Promise<(i: number) => Turn>

/** p50 in ms of turns one after another. */
const p50 = async (turns: Turns) => {
  const turn = await turns(sequential)
  const took: Array<number> = []
  for (let i = 0; i < sequential; i++) {
    const start = performance.now()
    await turn(i)()
    took.push(performance.now() - start)
  }
  return spread(took).median
}

/** Turns a second with `lanes` turns in flight. */
export const throughput = async (turns: Turns) => {
  const turn = await turns(parallel)
  let next = 0
  const start = performance.now()
  await Promise.all(Array.from({ length: lanes }, async () => {
    while (next < parallel) await turn(next++)()
  }))
  return (parallel * 1000) / (performance.now() - start)
}

/** The same turn every time. */
export const always = (turn: Turn): Turns => () => Promise.resolve(() => turn)

/**
 * The direct client: undici's keep-alive Agent, the dispatcher fallback's HTTP client runs on,
 * called without fetch's cost on top.
 */
export const direct = new Undici.Agent()

/** The conversation every turn sends, direct or through fallback: one exchange so far, then the prompt. */
const conversation = [{ role: "user", content: "hi" }, { role: "assistant", content: "ok" }, {
  role: "user",
  content: "hi"
}]

export const chat = (url: string, model: string, stream: boolean, headers: Record<string, string> = {}): Turn => {
  const { origin } = new URL(url)
  const body = JSON.stringify({ model, stream, messages: conversation })
  const sent = { "content-type": "application/json", ...headers }
  return async () => {
    const response = await direct.request({ origin, path: "/v1/chat/completions", method: "POST", headers: sent, body })
    const text = await response.body.text()
    if (response.statusCode >= 300) throw new Error(`${response.statusCode} ${text.slice(0, 200)}`)
  }
}

/** A 429 moves at once and cools nothing, and the breaker never parks: every turn fails over afresh. */
const movesAtOnce = Answer.override(Answer.primary, {
  RateLimited: new Answer.Answer({ accounts: true, places: true })
})

/**
 * The HttpClient a program gives the HTTP providers: `NodeHttpClient`'s on undici, and the same
 * undici Agent as the providers' Dispatcher, which their replies are sent to directly; `client`
 * alone: the HttpClient only (every request through it).
 */
export const clientLayer = (through: "dispatcher" | "client" = "dispatcher") =>
  through === "client"
    ? NodeHttpClient.layerUndici
    : Layer.merge(
      NodeHttpClient.layerUndiciNoDispatcher,
      HttpProvider.layerDirect(NodeHttpClient.Dispatcher)
    ).pipe(Layer.provide(NodeHttpClient.layerDispatcher))

const world = (url: string, chain: ReadonlyArray<string>, through: "dispatcher" | "client") => {
  const backends = Layer.unwrap(
    Effect.map(
      OpenAiCompatible.make({ name: "local", baseUrl: `${url}/v1` }),
      (backend) => Backend.Backends.layer([backend])
    )
  ).pipe(Layer.provide(clientLayer(through)))
  const written = Layer.effectDiscard(
    Effect.gen(function*() {
      const steps = yield* Steps.Steps
      for (let i = 1; i < chain.length; i++) yield* steps.points(chain[i - 1]!, chain[i]!)
    }).pipe(Effect.orDie)
  )
  const silent = Layer.succeed(Notice.Notices, { publish: () => Effect.void, watch: Effect.succeed(Stream.empty) })
  return Layer.provideMerge(
    written,
    Layer.mergeAll(
      backends,
      Steps.Steps.layerMemory,
      Health.Health.layerMemory({ failures: Number.MAX_SAFE_INTEGER, park: Duration.seconds(1) }),
      silent
    )
  )
}

/**
 * Fallback's turns at `chain`, each on an agent of its own that has answered one turn already (its
 * session open, its stand-in built): every measured turn starts at the first place with one
 * exchange of history, so no turn carries a conversation the bench has grown. The agents of one
 * measurement are made before it and let go after it. A turn takes the provider's whole reply,
 * which keeps the design's 30 s to the first byte and the deadline itself; `whole`: the agent sets
 * no first-byte limit.
 */
export const ours = <A>(
  url: string,
  chain: ReadonlyArray<string>,
  whole = false,
  measured: (turns: Turns) => Promise<A> = measure as never,
  through: "dispatcher" | "client" = "dispatcher"
): Effect.Effect<A> =>
  Effect.gen(function*() {
    const run = Effect.runPromiseWith(yield* Effect.context<Steps.Steps | Health.Health | Backend.Backends>())
    let held: Scope.Closeable | undefined
    const turns: Turns = async (count) => {
      if (held !== undefined) await run(Scope.close(held, Exit.void))
      const scope = held = await run(Scope.make())
      const agents = await run(Effect.forEach(Array.from({ length: count }), () =>
        Agent.make(chain[0]!, undefined, {
          moved: "returns",
          answers: movesAtOnce,
          ...(whole ? { firstByte: Option.none() } : {})
        }).pipe(
          Effect.tap((agent) => Agent.ask(agent, "hi")),
          Scope.provide(scope)
        )))
      return (i) => () => run(Agent.ask(agents[i]!, "hi"))
    }
    return yield* Effect.promise(() => measured(turns)).pipe(
      Effect.ensuring(Effect.suspend(() => held === undefined ? Effect.void : Scope.close(held, Exit.void)))
    )
  }).pipe(Effect.provide(world(url, chain, through)))

const measure = async (turns: Turns) => {
  await throughput(turns)
  const latency: Array<number> = []
  const rate: Array<number> = []
  for (let r = 0; r < repetitions; r++) {
    latency.push(await p50(turns))
    rate.push(await throughput(turns))
  }
  return { latency, rate }
}

/** B5's figures. */
export const http = async (): Promise<Array<Figure>> => {
  const mock = await MockProvider.start({ lifetime: 30 * 60_000, text: "ok" })
  const results: Array<readonly [string, { latency: Array<number>; rate: Array<number> }]> = []
  let portkey = "not measured"
  try {
    results.push(["direct (undici)", await measure(always(chat(mock.url, "m", true)))])
    results.push(["direct (undici), not streamed", await measure(always(chat(mock.url, "m", false)))])
    results.push(["through fallback", await Effect.runPromise(ours(mock.url, ["local/m", "local/n"]))])
    results.push([
      "through fallback, on the HttpClient alone (no Dispatcher given)",
      await Effect.runPromise(ours(mock.url, ["local/m", "local/n"], false, measure, "client"))
    ])
    results.push([
      "through fallback, no first-byte limit (whole replies)",
      await Effect.runPromise(ours(mock.url, ["local/m", "local/n"], true))
    ])
    results.push([
      "through fallback, 429 at the first place",
      await Effect.runPromise(ours(mock.url, ["local/m-fault-rate-limit", "local/n"]))
    ])
    const gateway = await Portkey.start().catch((error: Error) => {
      portkey = `did not start: ${error.message}`
      return undefined
    })
    if (gateway !== undefined) {
      try {
        results.push([
          "through Portkey, not streamed",
          await measure(always(chat(gateway.url, "m", false, Portkey.headers(mock.url))))
        ])
        results.push([
          "through Portkey, not streamed, 429 at the first target",
          await measure(always(chat(gateway.url, "m", false, Portkey.headers(mock.url, "m-fault-rate-limit"))))
        ])
        portkey = "measured"
      } catch (error) {
        portkey = `failed: ${(error as Error).message}`
      } finally {
        await gateway.stop()
      }
    }
  } finally {
    await mock.stop()
    await direct.close()
  }
  const latency = against(
    results.map(([name, { latency }]) => figure("B5", `${name}: p50 at concurrency 1`, "ms", latency)),
    "direct (undici): p50 at concurrency 1"
  )
  const rate = against(
    results.map(([name, { rate }]) => figure("B5", `${name}: at concurrency 50`, "req/s", rate)),
    "direct (undici): at concurrency 50"
  )
  if (portkey !== "measured") latency.push(figure("B5", "Portkey gateway", "", [0], portkey))
  return [...latency, ...rate]
}
