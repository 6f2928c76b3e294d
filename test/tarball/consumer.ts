/**
 * A program as a user of the published packages writes it: an agent at an OpenAI-compatible
 * provider (the testkit's loopback mock), whose model is retired, fails over once to the next
 * place and answers there. The tarball test type-checks it under `nodenext` and `bundler`, compiles
 * it and runs the JavaScript with plain node against the installed tarballs.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { OpenAiCompatible } from "@fallback/backends"
import { Agent, Backend, Health, Place, Steps } from "@fallback/core"
import { MockProvider } from "@fallback/testkit"
import { Effect, Layer } from "effect"

const program = Effect.gen(function*() {
  const mock = yield* MockProvider.MockProvider
  yield* mock.script([
    { fault: "model-not-found", model: "gpt-retired" },
    { fault: "answer", model: "qwen3:8b", text: "answered from the tarballs" }
  ])
  const steps = yield* Steps.Steps
  yield* steps.points("local/gpt-retired", "local/qwen3:8b")
  const backend = yield* OpenAiCompatible.make({ name: "local", baseUrl: `${mock.url}/v1` })
  return yield* Effect.gen(function*() {
    const agent = yield* Agent.make("local/gpt-retired")
    const answer = yield* Agent.ask(agent, "Say hello.")
    const at = Place.format(yield* agent.at)
    const { total } = yield* mock.requests
    return { answer, at, requests: total }
  }).pipe(Effect.provide(Backend.Backends.layer([backend])))
}).pipe(
  Effect.scoped,
  Effect.provide(Layer.mergeAll(
    MockProvider.MockProvider.layer(),
    Steps.Steps.layerMemory,
    Health.Health.layerMemory(),
    NodeHttpClient.layerUndici
  ))
)

const { answer, at, requests } = await Effect.runPromise(program)
console.log(JSON.stringify({ answer, at, requests }))
if (answer !== "answered from the tarballs" || at !== "local/qwen3:8b" || requests !== 2) {
  console.error("the turn did not fail over once to local/qwen3:8b")
  process.exit(1)
}
