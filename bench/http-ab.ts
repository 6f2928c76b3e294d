/**
 * B5 at concurrency 50, A/B in one process, interleaved round by round: direct undici, Effect's
 * HttpClient alone (`layerUndici`, execute + text), a fallback session's `reply` alone (no engine),
 * and `Agent.ask` through fallback. Each round runs every row once, in a rotated order; a row's
 * figures are its req/s and the process's CPU time a request (`process.cpuUsage`, the in-process
 * mock server included), and each round's ratio to direct. Medians of the rounds.
 *
 *   node bench/build.mjs http-ab && node bench/http-ab.bundle.mjs [rounds]
 *
 * `AB_ROWS=platform,fallback` runs only those rows beside direct; `AB_LANES=1` measures one turn
 * at a time (200 a round), where the p50 over direct is B5's c=1 figure.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { OpenAiCompatible } from "@fallback/backends"
import { Place, Settings } from "@fallback/core"
import { MockProvider } from "@fallback/testkit"
import * as Effect from "effect/Effect"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Option from "effect/Option"
import { always, chat, clientLayer, direct, ours } from "./http.js"

const median = (values: Array<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
const rounds = Number(process.argv[2] ?? 7)
const lanes = Number(process.env.AB_LANES ?? 50)
const count = Number(process.env.BENCH_HTTP_PARALLEL_TURNS ?? (lanes === 1 ? 200 : 1_000))

type Turns = (count: number) => Promise<(i: number) => () => Promise<unknown>>

/** req/s and CPU µs a request of `count` turns with `lanes` in flight. */
const run = async (turns: Turns) => {
  const turn = await turns(count)
  let next = 0
  const took: Array<number> = []
  const cpu = process.cpuUsage()
  const start = performance.now()
  await Promise.all(Array.from({ length: lanes }, async () => {
    while (next < count) {
      const at = performance.now()
      await turn(next++)()
      took.push(performance.now() - at)
    }
  }))
  const wall = performance.now() - start
  const used = process.cpuUsage(cpu)
  return { rate: (count * 1000) / wall, cpu: (used.user + used.system) / count, p50: median(took) }
}

const mock = await MockProvider.start({ lifetime: 30 * 60_000, text: "ok" })
const body = {
  model: "m",
  stream: true,
  stream_options: { include_usage: true },
  messages: [{ role: "user", content: "hi" }, { role: "assistant", content: "ok" }, { role: "user", content: "hi" }]
}

const clients = ManagedRuntime.make(NodeHttpClient.layerUndici)
const platform: Turns = await clients.runPromise(Effect.gen(function*() {
  const client = yield* HttpClient.HttpClient
  const request = HttpClientRequest.bodyJsonUnsafe(HttpClientRequest.post(`${mock.url}/v1/chat/completions`), body)
  const once = Effect.flatMap(client.execute(request), (response) => response.text)
  const run = Effect.runPromiseWith(yield* Effect.context<never>())
  return always(() => run(once))
}))

const sessionOn = (layer: ManagedRuntime.ManagedRuntime<any, never>) =>
  layer.runPromise(Effect.gen(function*() {
    const backend = yield* OpenAiCompatible.make({ name: "local", baseUrl: `${mock.url}/v1` })
    const opened = yield* backend.open(
      Place.Place.make({ cli: "local", model: "m" }),
      Option.none(),
      Settings.plain,
      {}
    )
    const prompt = { text: "hi", history: [{ prompt: "hi", answer: "ok" }] }
    const limits = { by: Infinity, whole: Infinity, deadline: Infinity }
    const limited = (now: number) => ({ by: now + 30_000, whole: now + 60_000, deadline: now + 60_000 })
    const go = Effect.runPromiseWith(yield* Effect.context<never>())
    return async () => (i: number) => () => go(opened.reply!(prompt, i % 1 === 0 ? limited(Date.now()) : limits))
  })) as Promise<Turns>
const dispatched = ManagedRuntime.make(clientLayer("dispatcher"))
const session = await sessionOn(clients)
const sessionDirect = await sessionOn(dispatched)

let fallback: Turns | undefined
const fallbackRow: Turns = (n) => fallback!(n)
let untimed: Turns | undefined
const untimedRow: Turns = (n) => untimed!(n)
let onClient: Turns | undefined
const onClientRow: Turns = (n) => onClient!(n)

const rows: Array<readonly [string, Turns]> = [
  ["direct", always(chat(mock.url, "m", true))],
  ["platform", platform],
  ["session", session],
  ["session-d", sessionDirect],
  ["fallback-c", onClientRow],
  ["fallback", fallbackRow],
  ["fallback-w", untimedRow]
]
const only = process.env.AB_ROWS?.split(",")
const chosen = rows.filter(([name]) => only === undefined || name === "direct" || only.includes(name))

const figures: Record<
  string,
  Array<{ rate: number; cpu: number; p50: number; ratio: number; cpuRatio: number; over: number }>
> = {}
try {
  await Effect.runPromise(ours(mock.url, ["local/m", "local/n"], false, (turns) => {
    onClient = turns
    return Effect.runPromise(ours(mock.url, ["local/m", "local/n"], false, (turns) => {
      fallback = turns
      return Effect.runPromise(ours(mock.url, ["local/m", "local/n"], true, (turns) => {
        untimed = turns
        return rounded()
      }))
    }))
  }, "client"))
} finally {
  await clients.dispose()
  await dispatched.dispose()
  await mock.stop()
  await direct.close()
}
async function rounded() {
  for (let r = -1; r < rounds; r++) {
    const order = chosen.map((_, i) => chosen[(i + r + chosen.length) % chosen.length]!)
    const seen: Record<string, { rate: number; cpu: number; p50: number }> = {}
    for (const [name, turns] of order) seen[name] = await run(turns)
    if (r < 0) continue
    for (const [name] of chosen) {
      ;(figures[name] ??= []).push({
        ...seen[name]!,
        ratio: seen[name]!.rate / seen.direct!.rate,
        cpuRatio: seen.direct!.cpu / seen[name]!.cpu,
        over: seen[name]!.p50 - seen.direct!.p50
      })
    }
  }
}
for (const [name, list] of Object.entries(figures)) {
  console.log(
    `${name.padEnd(9)} ${median(list.map((f) => f.rate)).toFixed(0).padStart(6)} req/s  ` +
      `${median(list.map((f) => f.cpu)).toFixed(0).padStart(5)} µs CPU/req  ` +
      `×direct req/s ${median(list.map((f) => f.ratio)).toFixed(2)} (${
        list.map((f) => f.ratio.toFixed(2)).join(" ")
      })  ` +
      `×direct by CPU ${median(list.map((f) => f.cpuRatio)).toFixed(2)}  ` +
      `p50 ${median(list.map((f) => f.p50)).toFixed(3)} ms (over direct ${median(list.map((f) => f.over)).toFixed(3)})`
  )
}
