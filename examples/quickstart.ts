/**
 * What fallback reads and waits with, printed: the six wait ladders and a few places parsed.
 *
 *   npm start
 */
import { Duration, Either } from "effect"
import { Place, Policy } from "@fallback/core"

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
  Either.match(Place.parse(input), {
    onLeft: (error) => `  ✗ ${error.message}`,
    onRight: (place) =>
      `  ✓ ${Place.format(place).padEnd(42)} cli=${place.cli} account=${place.account ?? "(none)"} model=${place.model}`
  })
)

console.log(
  [
    "The waits before the 2nd, 3rd, 4th… try (8 tries):",
    ...ladders,
    "",
    "Places, written CLI[@ACCOUNT]/MODEL:",
    ...places
  ].join("\n")
)
