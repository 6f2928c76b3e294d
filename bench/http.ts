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
import { OpenAiCompatible } from "@fallback/backends"
import { Agent, Answer, Backend, Health, Notice, Steps } from "@fallback/core"
import { MockProvider } from "@fallback/testkit"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Runtime from "effect/Runtime"
import * as Stream from "effect/Stream"
import { against, figure, type Figure, repetitions, spread } from "./figures.js"
import * as Portkey from "./portkey.js"

const sequential = Number(process.env.BENCH_HTTP_TURNS ?? 200)
const parallel = Number(process.env.BENCH_HTTP_PARALLEL_TURNS ?? 1_000)
const lanes = 50

/** One turn as a promise. */
type Turn = () => Promise<unknown>

/** p50 in ms of `n` turns one after another. */
const p50 = async (turn: Turn) => {
  const took: Array<number> = []
  for (let i = 0; i < sequential; i++) {
    const start = performance.now()
    await turn()
    took.push(performance.now() - start)
  }
  return spread(took).median
}

/** Turns a second with `lanes` turns in flight, `lane(i)` giving lane i's turn. */
const throughput = async (lane: (i: number) => Turn) => {
  let left = parallel
  const start = performance.now()
  await Promise.all(Array.from({ length: lanes }, async (_, i) => {
    const turn = lane(i)
    while (left-- > 0) await turn()
  }))
  return (parallel * 1000) / (performance.now() - start)
}

/**
 * The direct client: undici's keep-alive Agent, the dispatcher fallback's HTTP client runs on,
 * called without fetch's cost on top.
 */
const direct = new Undici.Agent()

const chat = (url: string, model: string, stream: boolean, headers: Record<string, string> = {}): Turn => {
  const { origin } = new URL(url)
  const body = JSON.stringify({ model, stream, messages: [{ role: "user", content: "hi" }] })
  const sent = { "content-type": "application/json", ...headers }
  return async () => {
    const response = await direct.request({ origin, path: "/v1/chat/completions", method: "POST", headers: sent, body })
    const text = await response.body.text()
    if (response.statusCode >= 300) throw new Error(`${response.statusCode} ${text.slice(0, 200)}`)
  }
}

/** A 429 moves at once and cools nothing, and the breaker never parks: every turn fails over afresh. */
const movesAtOnce = Answer.override(Answer.primary, { RateLimited: new Answer.Answer({ accounts: true, places: true }) })

const world = (url: string, chain: ReadonlyArray<string>) => {
  const backends = Layer.unwrapEffect(
    Effect.map(OpenAiCompatible.make({ name: "local", baseUrl: `${url}/v1` }), (backend) => Backend.Backends.layer([backend]))
  ).pipe(Layer.provide(NodeHttpClient.layerUndici))
  const written = Layer.effectDiscard(Effect.gen(function*() {
    const steps = yield* Steps.Steps
    for (let i = 1; i < chain.length; i++) yield* steps.points(chain[i - 1]!, chain[i]!)
  }).pipe(Effect.orDie))
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

/** Measures fallback's agents at `chain`: each lane its own agent, each turn starting at the first place. */
const ours = (url: string, chain: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const runtime = yield* Effect.runtime<never>()
    const agents = yield* Effect.forEach(
      Array.from({ length: lanes }),
      () => Agent.make(chain[0]!, undefined, { moved: "returns", answers: movesAtOnce })
    )
    const turn = (i: number): Turn => () => Runtime.runPromise(runtime)(Agent.ask(agents[i]!, "hi"))
    return yield* Effect.promise(() => measure(turn))
  }).pipe(Effect.scoped, Effect.provide(world(url, chain)))

const measure = async (lane: (i: number) => Turn) => {
  await throughput(lane)
  const latency: Array<number> = []
  const rate: Array<number> = []
  for (let r = 0; r < repetitions; r++) {
    latency.push(await p50(lane(0)))
    rate.push(await throughput(lane))
  }
  return { latency, rate }
}

/** B5's figures. */
export const http = async (): Promise<Array<Figure>> => {
  const mock = await MockProvider.start({ lifetime: 30 * 60_000, text: "ok" })
  const results: Array<readonly [string, { latency: Array<number>; rate: Array<number> }]> = []
  let portkey = "not measured"
  try {
    results.push(["direct (undici)", await measure(() => chat(mock.url, "m", true))])
    results.push(["direct (undici), not streamed", await measure(() => chat(mock.url, "m", false))])
    results.push(["through fallback", await Effect.runPromise(ours(mock.url, ["local/m", "local/n"]))])
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
        results.push(["through Portkey, not streamed", await measure(() => chat(gateway.url, "m", false, Portkey.headers(mock.url)))])
        results.push([
          "through Portkey, not streamed, 429 at the first target",
          await measure(() => chat(gateway.url, "m", false, Portkey.headers(mock.url, "m-fault-rate-limit")))
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
  const latency = against(results.map(([name, { latency }]) => figure("B5", `${name}: p50 at concurrency 1`, "ms", latency)), "direct (undici): p50 at concurrency 1")
  const rate = against(results.map(([name, { rate }]) => figure("B5", `${name}: at concurrency 50`, "req/s", rate)), "direct (undici): at concurrency 50")
  if (portkey !== "measured") latency.push(figure("B5", "Portkey gateway", "", [0], portkey))
  return [...latency, ...rate]
}
