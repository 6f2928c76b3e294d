/**
 * Existing `effect/ai` code failing over across two providers (fallback's own Anthropic and OpenAI
 * language models), run against the loopback mock provider (no network, no keys):
 *
 *   npm run example:effect-ai
 *
 * 1. `LanguageModel` code, unchanged, given Anthropic's model alone: its key is refused, it fails.
 * 2. The same code given a chain (Anthropic, then OpenAI's Responses API): it answers, the notice
 *    says where it carried on, and the finish part's metadata says where it was answered.
 * 3. `streamText` through the same chain, which stays where it moved.
 * 4. The same two models as an `ExecutionPlan`, and the same plan turned into a chain.
 * 5. A chain that gives up: its error caught by its reason, the failure kind in a typed field.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { AiFailure, AiPlace, AnthropicLanguageModel, FallbackAi, OpenAiLanguageModel } from "@fallback/ai"
import { Answer } from "@fallback/core"
import { MockProvider } from "@fallback/testkit"
import { Config, ConfigProvider, Console, Duration, Effect, ExecutionPlan, type Redacted, Result, Stream } from "effect"
import { LanguageModel } from "effect/ai"

// The code you already have: it asks for a LanguageModel and knows nothing of failover.
const program = Effect.map(
  LanguageModel.generateText({
    prompt: [
      { role: "system", content: "You answer in one sentence." },
      { role: "user", content: "What does a fallback chain do?" }
    ]
  }),
  (response) => ({
    text: response.text,
    answeredAt: response.content.find((part) => part.type === "finish")?.metadata.fallback
  })
)

const main = Effect.gen(function*() {
  const mock = yield* MockProvider.make({ text: "It keeps the answer coming when a provider fails." })
  // Anthropic refuses the key: every request there is answered 401.
  yield* mock.script([{ fault: "unauthorized", route: "anthropic" }])

  // Each provider's model, as you would write it; the key comes from the environment.
  const claude = (model: string, key: Config.Config<Redacted.Redacted> = Config.Redacted("ANTHROPIC_API_KEY")) =>
    AnthropicLanguageModel.layer({ model, apiKey: key, baseUrl: mock.url })
  const gpt = (model: string, key: Config.Config<Redacted.Redacted> = Config.Redacted("OPENAI_API_KEY")) =>
    OpenAiLanguageModel.layer({ model, apiKey: key, baseUrl: `${mock.url}/v1` })

  yield* Console.log("1. Anthropic alone")
  const alone = yield* program.pipe(Effect.provide(claude("claude-opus-5")), Effect.result)
  yield* Console.log(
    Result.isFailure(alone)
      ? `   failed: ${alone.failure._tag} ${alone.failure.message.split("\n")[0]}`
      : alone.success
  )

  // The same models registered as places: `anthropic/MODEL` and `openai/MODEL`.
  const anthropic = AiPlace.make({
    cli: "anthropic",
    key: "ANTHROPIC_API_KEY",
    layer: (at) => claude(at.model, at.key)
  })
  const openai = AiPlace.make({ cli: "openai", key: "OPENAI_API_KEY", layer: (at) => gpt(at.model, at.key) })
  const chained = FallbackAi.chain(["anthropic/claude-opus-5", "openai/gpt-5.5"], [anthropic, openai])

  yield* Effect.gen(function*() {
    yield* Console.log("\n2. The same code given the chain (the notice is on stderr)")
    const answer = yield* program
    yield* Console.log(`   ${answer.text}\n   answered at: ${JSON.stringify(answer.answeredAt)}`)

    yield* Console.log("\n3. streamText through the same chain (it moved, and stays moved: no notice now)")
    const streamed = yield* LanguageModel.streamText({ prompt: "Say it again, streamed." }).pipe(
      Stream.filter((part) => part.type === "text-delta"),
      Stream.map((part) => part.delta),
      Stream.runCollect
    )
    yield* Console.log(`   ${[...streamed].join(" | ")}`)
  }).pipe(Effect.provide(chained))

  yield* Console.log("\n4. An ExecutionPlan of the same two models, and the same plan as a chain")
  const plan = ExecutionPlan.make({ provide: claude("claude-opus-5"), attempts: 2 }, { provide: gpt("gpt-5.5") })
  yield* mock.reset
  yield* mock.script([{ fault: "unauthorized", route: "anthropic" }])
  yield* Console.log("   withExecutionPlan:   ", (yield* Effect.withExecutionPlan(program, plan)).text)
  const planRequests = (yield* mock.requests).log.map((request) => `${request.route}:${request.fault}`)
  yield* mock.reset
  yield* mock.script([{ fault: "unauthorized", route: "anthropic" }])
  const asChain = FallbackAi.fromExecutionPlan(plan, ["anthropic/claude-opus-5", "openai/gpt-5.5"])
  yield* Console.log("   fromExecutionPlan:   ", (yield* Effect.provide(program, asChain)).text)
  const chainRequests = (yield* mock.requests).log.map((request) => `${request.route}:${request.fault}`)
  yield* Console.log(`   requests, plan:  ${planRequests.join(", ")}`)
  yield* Console.log(`   requests, chain: ${chainRequests.join(", ")}`)
  yield* Console.log("   (the plan retries a refused key; the chain knows that is no use and moves at once)")

  yield* Console.log("\n5. A chain that gives up, caught by its reason")
  yield* mock.reset
  yield* mock.script([{ fault: "rate-limit", retryAfter: 20 }])
  const gaveUp = FallbackAi.chain(["anthropic/claude-opus-5", "openai/gpt-5.5"], [anthropic, openai], {
    // a rate limit walks on at once here (by default it waits first, as the step says)
    options: { answers: Answer.override(Answer.primary, { RateLimited: Answer.primary.Unknown }) }
  })
  const caught = yield* program.pipe(
    Effect.map((answer) => `   answered: ${answer.text}`),
    Effect.catchReason("AiError", "RateLimitError", (reason) =>
      Effect.succeed(
        `   rate-limited at ${reason.metadata.fallback?.place} (${reason.metadata.fallback?.kind}); ` +
          `asked to wait ${reason.retryAfter === undefined ? "nothing" : `${Duration.toSeconds(reason.retryAfter)}s`}`
      )),
    Effect.catch((error) => Effect.succeed(`   failed: ${AiFailure.kindOf(error as any) ?? String(error)}`)),
    Effect.provide(gaveUp)
  )
  yield* Console.log(caught)
})

main.pipe(
  Effect.scoped,
  Effect.provide(NodeHttpClient.layerUndici),
  Effect.provideService(
    ConfigProvider.ConfigProvider,
    ConfigProvider.fromUnknown({
      ANTHROPIC_API_KEY: "sk-ant-demo-not-a-real-key-0000",
      OPENAI_API_KEY: "sk-demo-not-a-real-key-0000"
    })
  ),
  Effect.runPromise
)
