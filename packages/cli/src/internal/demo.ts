import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as Accounts from "@fallback/core/Accounts"
import * as Agent from "@fallback/core/Agent"
import * as Answer from "@fallback/core/Answer"
import * as ConfigFile from "@fallback/core/ConfigFile"
import * as Health from "@fallback/core/Health"
import * as Notice from "@fallback/core/Notice"
import * as Place from "@fallback/core/Place"
import * as Steps from "@fallback/core/Steps"
import * as MockProvider from "@fallback/testkit/MockProvider"
import * as Command from "effect/cli/Command"
import * as Clock from "effect/Clock"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Console from "effect/Console"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import { backendsOf } from "./backends.js"
import * as DemoWorld from "./demoWorld.js"
import { table } from "./table.js"

const start = "anthropic@work/claude-opus-5"

/**
 * The demo's world: three providers on the loopback mock, the anthropic provider's two accounts
 * (their keys taken from variables only the demo sets), and the chain a failed turn walks.
 */
const world = (url: string): ConfigFile.Document => ({
  steps: {
    [start]: { to: Place.Place.make({ cli: "openai", model: "gpt-4.5-preview" }) },
    "openai/gpt-4.5-preview": { to: Place.Place.make({ cli: "local", model: "qwen3:8b" }) }
  },
  accounts: DemoWorld.accounts,
  providers: {
    ...DemoWorld.providers(url, { anthropic: "claude-opus-5", openai: "gpt-4.5-preview" }),
    local: { kind: "openai-compatible", baseUrl: `${url}/v1`, models: [{ name: "qwen3:8b", contextWindow: 32768 }] }
  },
  clis: {}
})

/** The outage: the work account is rate-limited, the spare key is refused, the model is retired. */
const outage: ReadonlyArray<MockProvider.Rule> = [
  { fault: "rate-limit", key: "demo-key-work", retryAfter: 1 },
  { fault: "unauthorized", key: "demo-key-spare" },
  { fault: "model-not-found", model: "gpt-4.5-preview" },
  { fault: "answer", model: "qwen3:8b", text: "Hello! I am qwen3:8b on a local server, answering after three outages." }
]

/** The primary design waits at least 30 s on a rate limit; the demo waits the 1 s the mock asks for. */
const quick: Partial<Agent.Options> = {
  answers: Answer.override(Answer.primary, {
    RateLimited: new Answer.Answer({
      here: [Duration.seconds(1)],
      atLeast: Duration.seconds(1),
      step: true,
      accounts: true,
      places: true,
      cooldown: Duration.seconds(30)
    })
  })
}

const what: Readonly<Record<string, string>> = {
  "rate-limit": "rate-limited (429)",
  unauthorized: "key refused (401)",
  "model-not-found": "model retired (404)",
  answer: "answered"
}

/** @internal */
const places = (document: ConfigFile.Document) =>
  Layer.mergeAll(
    Steps.Steps.layer,
    Accounts.Accounts.layer,
    backendsOf(document).pipe(Layer.provide(NodeHttpClient.layerUndici)),
    Health.Health.layerMemory(),
    Notice.Notices.layer
  ).pipe(Layer.provide(ConfigFile.Store.layerMemory(document)))

const play = (mock: MockProvider.Service) =>
  Effect.gen(function*() {
    const began = yield* Clock.currentTimeMillis
    yield* Console.log([
      "fallback demo: one turn through a chain of places, over HTTP, against a provider on 127.0.0.1",
      "that plays an outage. No network, no real keys.",
      "",
      `  chain     ${[start, "openai/gpt-4.5-preview", "local/qwen3:8b"].join(" → ")}`,
      "  accounts  anthropic: work, spare",
      "  outage    work is rate-limited, spare's key is refused, gpt-4.5-preview is retired",
      "",
      "What recovery does, as it happens:"
    ].join("\n"))
    const notices = yield* Notice.Notices
    const watching = yield* notices.watch
    const narrator = yield* watching.pipe(
      Stream.runForEach((notice) => Console.log(`  ${Notice.format(notice)}`)),
      Effect.forkChild
    )
    const agent = yield* Agent.make(start, undefined, quick)
    const answer = yield* Agent.ask(agent, "Say hello.")
    yield* Effect.sleep(Duration.millis(10))
    yield* Fiber.interrupt(narrator)
    const took = (yield* Clock.currentTimeMillis) - began
    const counts = yield* mock.requests
    const rows = counts.log.map((request) => [
      request.key === "demo-key-work" ? start : request.key === "demo-key-spare" ?
        "anthropic@spare/claude-opus-5" :
        request.model === "gpt-4.5-preview"
        ? "openai/gpt-4.5-preview"
        : `local/${request.model}`,
      request.route,
      what[request.fault] ?? request.fault
    ])
    yield* Console.log([
      "",
      `The answer, from ${Place.format(yield* agent.at)}:`,
      `  ${answer}`,
      "",
      "What happened:",
      table(["PLACE", "API", "OUTCOME"], rows).split("\n").map((line) => `  ${line}`).join("\n"),
      "",
      `  ${counts.total} requests, ${rows.length - 1} failed and answered, ${(took / 1000).toFixed(1)} s.`,
      "  (The primary design waits at least 30 s on a rate limit; the demo waits the 1 s the provider asks for.)"
    ].join("\n"))
  }).pipe(Effect.scoped)

/** @internal */
export const demo = Command.make("demo", {}, () =>
  Effect.gen(function*() {
    const mock = yield* MockProvider.MockProvider
    yield* mock.script(outage)
    yield* play(mock).pipe(Effect.provide(places(world(mock.url))))
  }).pipe(
    Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnvRecord(DemoWorld.keys)),
    Effect.provide(MockProvider.MockProvider.layer())
  )).pipe(
    Command.withDescription(
      "Runs one real turn through a chain of places over HTTP, against a loopback provider playing a\n" +
        "scripted outage (a rate-limited account, a refused key, a retired model, then a place that\n" +
        "answers), narrates the recovery, and sums up what happened. No network, no keys.\n\n  fallback demo"
    )
  )
