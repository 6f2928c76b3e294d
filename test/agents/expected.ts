/**
 * What each fault of the mock provider must be judged as, per CLI: the kind of the failure, or
 * "answer" for a turn that lands. Both the agents suite (live) and the replay test (recorded)
 * hold the backends to this table.
 */
import type { Failure } from "@fallback/core"
import * as MockProvider from "@fallback/testkit/MockProvider"

export type Cli = "claude" | "codex" | "gemini" | "opencode"

/**
 * The HTTP crash test's faults (issue 25): proven against the HTTP providers by
 * packages/backends/test/FaultsMatrix.test.ts and through `fallback run --json` by test/faults.test.ts,
 * not through the agent CLIs (nor recorded for the replay test).
 */
const crash = [
  "rate-limit-bare",
  "content-filter",
  "content-policy",
  "no-prefill",
  "flap",
  "slow",
  "slow-token",
  "cut-mid-json"
] as const

/**
 * The faults a turn ends on by itself; `hang` and `stall` end only by a deadline (see kill.agents.ts),
 * and `think` (an answer that thinks first) is recorded for claude alone (see thinking.agents.ts).
 */
export type Fault = Exclude<
  MockProvider.Fault,
  "hang" | "stall" | "think" | MockProvider.Malformed | typeof crash[number]
>

const left: ReadonlySet<MockProvider.Fault> = new Set(["hang", "stall", "think", ...MockProvider.malformed, ...crash])

export const faults: ReadonlyArray<Fault> = MockProvider.faults.filter((fault): fault is Fault => !left.has(fault))

type Judged = Failure.Kind | "answer"

const common: Record<Fault, Judged> = {
  "answer": "answer",
  "rate-limit": "RateLimited",
  "quota": "QuotaExhausted",
  "overloaded": "RateLimited",
  "server-error": "Unknown",
  "bad-gateway": "ConnectionLost",
  "unauthorized": "AuthRefused",
  "forbidden": "AuthRefused",
  "model-not-found": "ModelNotFound",
  "context-too-long": "ContextTooLong",
  "reset": "ConnectionLost",
  "refused": "ConnectionLost",
  "cut": "ConnectionLost",
  "stream-error": "Unknown"
}

export const expected: Record<Cli, Record<Fault, Judged>> = {
  claude: { ...common },
  codex: { ...common, "server-error": "RateLimited", "stream-error": "ConnectionLost" },
  gemini: { ...common, "stream-error": "ConnectionLost" },
  opencode: { ...common }
}

/**
 * The wait a rate-limited turn carries (`RateLimited.retryAfter`, seconds) where the CLI passes
 * the provider's on (the mock asks for 1 s); claude and codex drop it.
 */
export const waits: Record<Cli, number | undefined> = { claude: undefined, codex: undefined, gemini: 1, opencode: 1 }

/**
 * Whether a spent quota carries when it comes back (`QuotaExhausted.until`): only opencode passes
 * the provider's reset headers on.
 */
export const quotaEnds: Record<Cli, boolean> = { claude: false, codex: false, gemini: false, opencode: true }
