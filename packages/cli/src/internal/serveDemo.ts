import * as Answer from "@fallback/core/Answer"
import type * as ConfigFile from "@fallback/core/ConfigFile"
import * as Place from "@fallback/core/Place"
import type * as MockProvider from "@fallback/testkit/MockProvider"
import * as Duration from "effect/Duration"

import * as DemoWorld from "./demoWorld.js"

// `fallback serve --demo`: the gateway over the loopback mock, with a config made for it

/** @internal */
export const start = "anthropic@work/claude-sonnet-4-5"
/** @internal */
export const other = "openai/gpt-5.5"

/**
 * The model names Claude Code and Codex send (their defaults and the ones a person picks), each to the chain's
 * start, so `/v1/models` lists them; `"*"` sends any other name there too (a newer client's default).
 */
const sent = [
  "claude-sonnet-4-5",
  "claude-sonnet-4-5-20250929",
  "claude-sonnet-4-6",
  "claude-opus-4-1",
  "claude-opus-4-1-20250805",
  "claude-opus-4-5",
  "claude-opus-4-5-20251101",
  "claude-opus-4-6",
  "claude-opus-4-7",
  "claude-opus-5",
  "claude-opus-5-5",
  "claude-sonnet-5",
  "claude-sonnet-5-5",
  "claude-haiku-5",
  "claude-haiku-4-5",
  "claude-haiku-4-5-20251001",
  "gpt-5",
  "gpt-5-codex",
  "gpt-5.1-codex",
  "gpt-5.2-codex",
  "gpt-5.3-codex",
  "gpt-5.4",
  "gpt-5.5",
  "gpt-5.5-codex"
]

/**
 * The demo's config: the anthropic provider's two accounts (their keys from variables only the
 * demo sets), then an OpenAI-compatible place, all on the mock at `url`.
 *
 * @internal
 */
export const document = (url: string): ConfigFile.Document => ({
  steps: { [start]: { to: Place.Place.make({ cli: "openai", model: "gpt-5.5" }) } },
  accounts: DemoWorld.accounts,
  providers: DemoWorld.providers(url, { anthropic: "claude-sonnet-4-5", openai: "gpt-5.5" }),
  clis: {},
  aliases: { ...Object.fromEntries(sent.map((name) => [name, start])), "*": start }
})

/** @internal */
export const keys = DemoWorld.keys

/** How many requests the spare account answers before its quota runs out. */
const spareAnswers = 3

/**
 * The outage: the work account is rate-limited for good; the spare one answers a few requests,
 * then its quota is spent; the OpenAI-compatible place answers the rest.
 *
 * @internal
 */
export const outage: ReadonlyArray<MockProvider.Rule> = [
  { fault: "rate-limit", key: keys.DEMO_KEY_WORK, retryAfter: 30 },
  {
    fault: "answer",
    key: keys.DEMO_KEY_SPARE,
    times: spareAnswers,
    text: "Hello from the demo's Anthropic account \"spare\": \"work\" is rate-limited, so fallback moved this " +
      "conversation here. It answers a few requests more before its quota runs out."
  },
  { fault: "quota", key: keys.DEMO_KEY_SPARE },
  {
    fault: "answer",
    text: "Hello from the demo's OpenAI-compatible place: \"work\" is rate-limited and \"spare\" is out of quota, " +
      "so fallback moved this conversation to the other vendor, translating its wire."
  }
]

/** A rate limit or a spent quota moves at once (the place cools as long as it asked), so a client never waits on the demo. */
export const answers: Answer.Table = Answer.override(Answer.primary, {
  RateLimited: new Answer.Answer({ accounts: true, places: true, cooldown: Duration.seconds(30) }),
  QuotaExhausted: new Answer.Answer({ accounts: true, places: true, cooldown: Duration.minutes(30) })
})

/** @internal */
export const story = (url: string): string =>
  [
    `fallback serve --demo: a gateway over a loopback provider playing an outage, at ${url}; no keys, no network.`,
    `  chain     ${start} → anthropic@spare/claude-sonnet-4-5 → ${other}`,
    `  outage    work is rate-limited; spare answers ${spareAnswers} requests, then its quota is spent`,
    `  models    any model name a client sends (Claude Code's and Codex's defaults too) goes to ${start}`
  ].join("\n")
