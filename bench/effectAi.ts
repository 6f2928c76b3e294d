/**
 * B6 effect/ai: the same two `LanguageModel` layers called (a) bare, (b) through Effect's
 * `ExecutionPlan`, (c) through a fallback chain (`FallbackAi`), on the happy path and with one
 * failover (the first fails with a 500, which moves at once), in-process (scripted models that
 * answer at once) and over HTTP against the loopback mock (fallback's own Anthropic Messages
 * model, then its OpenAI model on the Responses API).
 */
import { NodeHttpClient } from "@effect/platform-node"
import { AiPlace, AnthropicLanguageModel, FallbackAi, OpenAiLanguageModel } from "@fallback/ai"
import { Backend, ConfigFile, Health, Notice, Steps } from "@fallback/core"
import { MockProvider } from "@fallback/testkit"
import * as AiError from "effect/ai/AiError"
import * as LanguageModel from "effect/ai/LanguageModel"
import * as Response from "effect/ai/Response"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as ExecutionPlan from "effect/ExecutionPlan"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"

import { against, type Figure, figure } from "./figures.js"
import { inEffect } from "./loops.js"

const turns = Number(process.env.BENCH_TURNS ?? 5_000)
const httpTurns = Number(process.env.BENCH_HTTP_TURNS ?? 200)

const serverError = AiError.make({
  module: "Scripted",
  method: "generateText",
  reason: AiError.reasonFromHttpStatus({
    status: 500,
    http: {
      response: { status: 500, headers: {} },
      body: "{\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"Internal server error\"}}"
    }
  })
})

/**
 * An in-process model that answers at once, or fails with a 500: the service itself, so that a
 * call costs what the caller's side costs (`LanguageModel.make` compiles a response schema on
 * every call, about a millisecond, which would hide everything else).
 */
export const scripted = (name: string, fails: boolean): Layer.Layer<LanguageModel.LanguageModel> => {
  const response = new LanguageModel.GenerateTextResponse([
    Response.makePart("text", { text: `answered by ${name}` }),
    Response.makePart("finish", {
      reason: "stop",
      usage: new Response.Usage({ inputTokens: { total: 1 }, outputTokens: { total: 1 } })
    })
  ])
  const answer = fails ? Effect.fail(serverError) : Effect.succeed(response)
  return Layer.succeed(
    LanguageModel.LanguageModel,
    LanguageModel.LanguageModel.of({
      [LanguageModel.TypeId]: LanguageModel.TypeId,
      generateText: () => answer as any,
      generateObject: () => Effect.die("not asked for objects") as any,
      streamText: () => Stream.die("not streamed") as any
    })
  )
}

export const ask = LanguageModel.generateText({ prompt: "hi" })

/** A breaker that never parks, so that every turn of a failover row fails over. */
const never: Health.Breaker = { failures: Number.MAX_SAFE_INTEGER, park: Duration.seconds(60) }

/** Notices dropped: the bench measures the turns, not a terminal printing thousands of lines. */
const silent = Layer.succeed(Notice.Notices, { publish: () => Effect.void, watch: Effect.succeed(Stream.empty) })

/** The chain first → second as a LanguageModel, its agent moving back to the first each turn. */
export const chained = <R>(
  backends: ReadonlyArray<Effect.Effect<Backend.Backend, never, R>>,
  places: readonly [string, string],
  firstByte: boolean
) => {
  const written = Layer.effectDiscard(
    Effect.orDie(Effect.flatMap(Steps.Steps, (steps) => steps.points(places[0], places[1])))
  )
  const world = Layer.provideMerge(
    written,
    Layer.mergeAll(
      Layer.unwrap(Effect.map(Effect.all(backends), Backend.Backends.layer)),
      Layer.provideMerge(Steps.Steps.layer, ConfigFile.Store.layerMemory()),
      Health.Health.layerMemory(never),
      silent
    )
  )
  return FallbackAi.layer(places[0], {
    options: { moved: "returns", ...(firstByte ? {} : { firstByte: Option.none() }) }
  }).pipe(
    Layer.orDie,
    Layer.provide(world)
  )
}

/** µs (in-process) or ms (HTTP) a call, for each way of calling; `first` and `second` the two models. */
const rows = <R>(
  bench: string,
  unit: "µs" | "ms",
  n: number,
  first: Layer.Layer<LanguageModel.LanguageModel, never, R>,
  second: Layer.Layer<LanguageModel.LanguageModel, never, R>,
  backends: ReadonlyArray<Effect.Effect<Backend.Backend, never, R>>,
  places: readonly [string, string],
  failover: boolean
) =>
  Effect.gen(function*() {
    const scale = unit === "ms" ? 1 / 1000 : 1
    const per = (samples: Array<number>) => samples.map((s) => s * scale)
    const held = (
      layer: Layer.Layer<LanguageModel.LanguageModel, never, R>,
      call: Effect.Effect<unknown, unknown, LanguageModel.LanguageModel>
    ) => Effect.scoped(Effect.flatMap(Layer.build(layer), (context) => inEffect(n, Effect.provide(call, context))))
    const bareCall = failover
      ? Effect.catch(ask, () =>
        Effect.flatMap(Effect.serviceOption(Second), (s) =>
          Effect.provideService(ask, LanguageModel.LanguageModel, Option.getOrThrow(s))))
      : ask
    const bare = yield* Effect.scoped(Effect.gen(function*() {
      const two = Context.get(yield* Layer.build(second), LanguageModel.LanguageModel)
      return yield* held(first, Effect.provideService(bareCall, Second, two))
    }))
    const plan = ExecutionPlan.make({ provide: first }, { provide: second })
    const planned = yield* inEffect(n, Effect.withExecutionPlan(ask, plan))
    const chain = yield* held(chained(backends, places, true), ask)
    const chainNoLimit = yield* held(chained(backends, places, false), ask)
    const base = failover ? "bare, hand-written catchAll to the second" : "bare LanguageModel call"
    return against([
      figure(bench, base, unit, per(bare)),
      figure(bench, "ExecutionPlan (Layer steps)", unit, per(planned)),
      figure(bench, "fallback chain (FallbackAi.layer)", unit, per(chain)),
      figure(bench, "fallback chain, no first-byte limit", unit, per(chainNoLimit))
    ], base)
  })

class Second extends Context.Service<Second, LanguageModel.LanguageModel>()("bench/Second") {}

export const scriptedPlace = (cli: string, fails: boolean) => AiPlace.make({ cli, layer: () => scripted(cli, fails) })

/** B6's figures. */
export const effectAi = async (): Promise<Array<Figure>> => {
  const figures: Array<Figure> = []
  const inProcess = (failover: boolean) =>
    rows(
      failover ? "B6 in-process, failover" : "B6 in-process, happy",
      "µs",
      turns,
      scripted("first", failover),
      scripted("second", false),
      [scriptedPlace("first", failover), scriptedPlace("second", false)],
      ["first/m", "second/m"],
      failover
    )
  figures.push(...await Effect.runPromise(inProcess(false)))
  figures.push(...await Effect.runPromise(inProcess(true)))

  const mock = await MockProvider.start({ lifetime: 30 * 60_000, text: "ok" })
  try {
    const overHttp = (failover: boolean) => {
      const { first, second, backends, places } = httpModels(mock.url, failover)
      return rows(
        failover ? "B6 HTTP, failover" : "B6 HTTP, happy",
        "ms",
        httpTurns,
        first,
        second,
        backends,
        places,
        failover
      ).pipe(Effect.provide(NodeHttpClient.layerUndici), Effect.provideService(ConfigProvider.ConfigProvider, httpKeys))
    }
    figures.push(...await Effect.runPromise(overHttp(false)))
    figures.push(...await Effect.runPromise(overHttp(true)))
  } finally {
    await mock.stop()
  }
  return figures
}

/** The keys the HTTP places read (the mock takes any). */
export const httpKeys = ConfigProvider.fromUnknown({ ANTHROPIC_API_KEY: "k", OPENAI_API_KEY: "k" })

/**
 * The two provider models on the mock at `url` (fallback's Anthropic Messages model, the first
 * failing with a 500 for `failover`, then its OpenAI model on the Responses API), as layers and as
 * places.
 */
export const httpModels = (url: string, failover: boolean) => {
  const claude = (model: string) =>
    Layer.orDie(AnthropicLanguageModel.layer({ model, apiKey: Redacted.make("bench-key"), baseUrl: url }))
  const gpt = (model: string) =>
    Layer.orDie(OpenAiLanguageModel.layer({ model, apiKey: Redacted.make("bench-key"), baseUrl: `${url}/v1` }))
  const firstModel = failover ? "claude-x-fault-server-error" : "claude-x"
  return {
    first: claude(firstModel),
    second: gpt("gpt-x"),
    backends: [
      AiPlace.make({ cli: "anthropic", key: "ANTHROPIC_API_KEY", layer: ({ model }) => claude(model) }),
      AiPlace.make({ cli: "openai", key: "OPENAI_API_KEY", layer: ({ model }) => gpt(model) })
    ],
    places: [`anthropic/${firstModel}`, "openai/gpt-x"] as const
  }
}

/** The in-process failover (or, `happy`, the landing call) through the chain, `n` times, for a profiler. */
export const effectAiFailoverLoop = (n: number, happy = false) =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const context = yield* Layer.build(
      chained([scriptedPlace("first", !happy), scriptedPlace("second", false)], ["first/m", "second/m"], true)
    )
    const call = Effect.provideService(
      ask,
      LanguageModel.LanguageModel,
      Context.get(context, LanguageModel.LanguageModel)
    )
    for (let i = 0; i < n; i++) yield* call
  })))
