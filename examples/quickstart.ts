/**
 * What fallback reads and waits with, printed: the six wait ladders, a few places parsed, and a
 * chain of steps written the way a script writes them.
 *
 *   npm run quickstart
 */
import { Place, Policy, Steps } from "@fallback/core"
import { Duration, Effect, Result } from "effect"

const seconds = (waits: ReadonlyArray<Duration.Duration>) =>
  waits.map((wait) => `${Duration.toSeconds(wait)}s`).join(", ")

const ladders = Policy.names.map((name) =>
  `  ${name.padEnd(19)} ${name === "none" ? "no wait at all" : seconds(Policy.ladder(name, 8))}` +
  (name === "exponential-jitter" ? "  (each drawn anywhere under these)" : "")
)

const places = [
  "claude@work/claude-opus-5",
  "opencode@work/anthropic/claude-sonnet-4-5",
  "ollama/qwen3:8b",
  "Claude/claude-opus-5"
].map((input) =>
  Result.match(Place.parse(input), {
    onFailure: (error) => `  ✗ ${error.message}`,
    onSuccess: (place) =>
      `  ✓ ${Place.format(place).padEnd(42)} cli=${place.cli} account=${place.account ?? "(none)"} model=${place.model}`
  })
)

const chain = Effect.gen(function*() {
  const steps = yield* Steps.Steps
  yield* steps.points("claude@work/claude-opus-5", "codex@key/gpt-5.6-sol")
  yield* steps.points("codex@key/gpt-5.6-sol", "dsh/deepseek-v4-flash")
  yield* steps.retrying("claude@work/claude-opus-5", 3, "exponential", Duration.seconds(90))
  return (yield* steps.chain("claude@work/claude-opus-5")).map(Place.format)
}).pipe(Effect.provide(Steps.Steps.layerMemory))

console.log(
  [
    "The waits before the 2nd, 3rd, 4th… try (8 tries):",
    ...ladders,
    "",
    "Places, written CLI[@ACCOUNT]/MODEL:",
    ...places,
    "",
    "steps.chain(\"claude@work/claude-opus-5\"):",
    `  ${JSON.stringify(Effect.runSync(chain))}`
  ].join("\n")
)
