/**
 * A header is a hint, not an order (issue 23): what a provider's rate-limit headers ask for is
 * read as a wait of at most `longestAsked` (30 minutes, 002's cooldown), or as nothing.
 */
import { describe, expect, it } from "@effect/vitest"
import { classify, judge, longestAsked, quotaUntil, waitAsked } from "@fallback/core/Classify"
import * as Failure from "@fallback/core/Failure"
import * as Place from "@fallback/core/Place"
import { MockProvider } from "@fallback/testkit"
import { Arbitrary, DateTime, Duration, Schema } from "effect"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as fc from "./arbitraries.js"
import { runOnce } from "./command.js"

const place = Place.Place.make({ cli: "local", model: "m1" })
const now = Date.parse("2026-12-01T21:00:00Z")

/** The reset headers, each read by `waitAsked`. */
const resetHeaders = [
  "retry-after",
  "retry-after-ms",
  "x-ratelimit-reset-requests",
  "x-ratelimit-reset-tokens",
  "anthropic-ratelimit-requests-reset",
  "anthropic-ratelimit-tokens-reset",
  "anthropic-ratelimit-input-tokens-reset"
] as const

/** The 26 values of issue 23's hostile provider. */
const hostile = [
  "1e308",
  "9e12",
  "1e15",
  "99999999",
  "-1",
  "-0",
  "0",
  "NaN",
  "Infinity",
  "-Infinity",
  "",
  " ",
  "abc",
  "1e-308",
  "0x10",
  "1,5",
  "30s",
  "1h",
  "2m30s",
  "Fri, 31 Dec 9999 23:59:59 GMT",
  "Thu, 01 Jan 1970 00:00:00 GMT",
  "2026-12-01T00:00:00Z",
  "9999-12-31T23:59:59Z",
  "18446744073709551616",
  "3.5",
  "  60  "
] as const

/** Header values as a provider could send them: any text, numbers of any size, dates of any year. */
const value = fc.oneof(
  fc.string(),
  fc.stringOf(fc.constantFrom(..."0123456789.-+eExms: ,TZ".split(""))),
  Arbitrary.map(fc.double(), String),
  Arbitrary.map(fc.bigInt(), String),
  Arbitrary.map(
    Arbitrary.all([fc.nat(), fc.constantFrom("ms", "s", "m", "h")]),
    ([amount, unit]) => `${amount}${unit}`
  ),
  Arbitrary.map(fc.integer({ min: -8.64e15, max: 8.64e15 }), (at) => new Date(at).toUTCString()),
  Arbitrary.map(fc.integer({ min: -8.64e15, max: 8.64e15 }), (at) => new Date(at).toISOString()),
  fc.constantFrom(...hostile)
)

const within = (wait: number | undefined) => wait === undefined || (wait >= 0 && wait <= longestAsked)

/** What a failure keeps of a provider's wait, in millis from `now`. */
const keptWaits = (failure: Failure.Failure): ReadonlyArray<number> =>
  failure._tag === "RateLimited" && failure.retryAfter !== undefined
    ? [Duration.toMillis(failure.retryAfter)]
    : failure._tag === "QuotaExhausted" && failure.until !== undefined
    ? [DateTime.toEpochMillis(failure.until) - now]
    : []

describe("a rate-limit header is a hint", () => {
  it("the ceiling is 30 minutes, the cooldown 002 registers", () => {
    expect(longestAsked).toBe(30 * 60 * 1000)
  })

  it.prop(
    "every reset header's reader, given any text, never throws and asks for nothing or for [0, 30 min]",
    [fc.constantFrom(...resetHeaders), value, fc.integer({ min: 0, max: 4e12 })],
    ([name, text, at]) => {
      expect(within(waitAsked(name, text, at))).toBe(true)
      expect(within(waitAsked(name.toUpperCase(), text, at))).toBe(true)
    },
    { arbitrary: { runs: 2000 } }
  )

  it.prop(
    "a 429 or a spent quota with any reset headers is a failure the failure schema takes, its wait at most 30 min",
    [
      fc.constantFrom(429, 402, 503),
      fc.dictionary(fc.constantFrom(...resetHeaders), value, { minKeys: 1 })
    ],
    ([status, headers]) => {
      const body = status === 402 ? "{\"error\":{\"type\":\"insufficient_quota\"}}" : ""
      const failure = classify({ status, headers, body }, place, now)
      for (const wait of keptWaits(failure)) expect(within(wait)).toBe(true)
      expect(() => Schema.encodeSync(Failure.Failure)(failure)).not.toThrow()
    },
    { arbitrary: { runs: 1000 } }
  )

  it.prop(
    "a spent quota's end from a CLI's recorded headers is at most 30 min after the response's date",
    [value, fc.integer({ min: 0, max: 8.64e15 })],
    ([text, date]) => {
      const until = quotaUntil({ date: new Date(date).toUTCString(), "x-ratelimit-reset-requests": text })
      if (until !== undefined) {
        const after = DateTime.toEpochMillis(until) - Math.floor(date / 1000) * 1000
        expect(after >= 0 && after <= longestAsked).toBe(true)
      }
    }
  )

  it("each of the 26 hostile values, in each header, is read as nothing or a wait of at most 30 min", () => {
    for (const name of resetHeaders) {
      for (const text of hostile) {
        const failure = classify({ status: 429, headers: { [name]: text }, body: "" }, place, now)
        expect(failure._tag).toBe("RateLimited")
        for (const wait of keptWaits(failure)) expect(within(wait), `${name}: ${JSON.stringify(text)}`).toBe(true)
        expect(() => Schema.encodeSync(Failure.Failure)(failure)).not.toThrow()
      }
    }
  })

  it("what a header plainly says is kept; past the ceiling it is the ceiling; nonsense is nothing", () => {
    const wait = (name: string, text: string) => waitAsked(name, text, now)
    expect(wait("retry-after", "  60  ")).toBe(60_000)
    expect(wait("retry-after", "3.5")).toBe(3500)
    expect(wait("retry-after", "0")).toBe(0)
    expect(wait("retry-after", "99999999")).toBe(longestAsked)
    expect(wait("retry-after", "18446744073709551616")).toBe(longestAsked)
    expect(wait("retry-after", "Fri, 31 Dec 9999 23:59:59 GMT")).toBe(longestAsked)
    expect(wait("retry-after", "Thu, 01 Jan 1970 00:00:00 GMT")).toBe(0)
    expect(wait("retry-after", new Date(now + 90_000).toUTCString())).toBe(90_000)
    expect(wait("x-ratelimit-reset-requests", "2m30s")).toBe(150_000)
    expect(wait("x-ratelimit-reset-tokens", "1h")).toBe(longestAsked)
    expect(wait("anthropic-ratelimit-tokens-reset", "9999-12-31T23:59:59Z")).toBe(longestAsked)
    expect(wait("anthropic-ratelimit-tokens-reset", new Date(now + 20_000).toISOString())).toBe(20_000)
    for (const text of ["-1", "-0", "NaN", "Infinity", "-Infinity", "", " ", "abc", "1e308", "0x10", "1,5"]) {
      expect(wait("retry-after", text), JSON.stringify(text)).toBeUndefined()
      expect(wait("x-ratelimit-reset-requests", text), JSON.stringify(text)).toBeUndefined()
    }
    expect(wait("anthropic-ratelimit-requests-reset", "3.5")).toBeUndefined()
  })

  it("a wait a provider asks for in its words is bounded too", () => {
    const failure = judge({ status: 429, words: "retry after 99999999999s", said: "slow down" }, place)
    expect(failure._tag === "RateLimited" && Duration.toMillis(failure.retryAfter!)).toBe(longestAsked)
    const asked = judge({ status: 429, words: "", said: "", retryAfter: 1e308 * 10 }, place)
    expect(asked._tag === "RateLimited" && asked.retryAfter).toBeUndefined()
    const quota = judge({ status: 402, words: "", said: "", until: 1e308 }, place)
    expect(quota._tag === "QuotaExhausted" && quota.until).toBeUndefined()
  })
})

/** Every number in a JSON value. */
const numbers = (value: unknown): ReadonlyArray<number> =>
  typeof value === "number"
    ? [value]
    : typeof value === "object" && value !== null
    ? Object.values(value).flatMap(numbers)
    : []

describe("fallback run against a provider whose 429 carries a hostile header", () => {
  it("the mock sends a rule's header values as given, and leaves out those set to null", async () => {
    const mock = await MockProvider.start()
    try {
      mock.script([{ fault: "rate-limit", headers: { "retry-after": "1e308", "x-ratelimit-reset-tokens": null } }])
      const response = await fetch(`${mock.url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "m", messages: [] })
      })
      expect(response.status).toBe(429)
      expect(response.headers.get("retry-after")).toBe("1e308")
      expect(response.headers.get("x-ratelimit-reset-tokens")).toBeNull()
      expect(response.headers.get("x-ratelimit-reset-requests")).toBe("30s")
    } finally {
      await mock.stop()
    }
  })

  it(
    "each of the 26 values in each reset header: an outcome line and a failed turn's status, no cooldown past 30 min",
    async () => {
      const mock = await MockProvider.start()
      const root = mkdtempSync(join(tmpdir(), "fallback-hints-"))
      const named = ["retry-after", ...resetHeaders.filter((name) => !name.startsWith("retry-after"))]
      const cases = named.flatMap((name) => hostile.map((text) => ({ name, text })))
      const others = Object.fromEntries(resetHeaders.map((name) => [name, null]))
      mock.script(cases.map(({ name, text }, i) => ({
        fault: "rate-limit",
        model: `m${i}`,
        headers: { ...others, [name]: text }
      })))
      const outcomes: Array<string> = []
      try {
        let next = 0
        const worker = async () => {
          for (let i = next++; i < cases.length; i = next++) {
            const { name, text } = cases[i]!
            const folder = join(root, String(i))
            const { code, lines, stderr } = await runOnce(folder, mock.url, `m${i}`)
            const ended = Date.now()
            const what = `${name}: ${JSON.stringify(text)} (${stderr.slice(0, 300)})`
            const outcome = lines.at(-1) ?? {}
            expect(outcome.type, what).toBe("outcome")
            expect(code, what).toBe(outcome.status)
            expect(outcome.kind, what).toBe("RateLimited")
            outcomes.push(String(outcome.kind))
            const health = JSON.parse(readFileSync(join(folder, "health.json"), "utf8"))
            for (const at of numbers(health)) {
              expect(Number.isFinite(at), what).toBe(true)
              expect(at, what).toBeLessThanOrEqual(ended + longestAsked)
            }
          }
        }
        await Promise.all([worker(), worker(), worker(), worker()])
      } finally {
        await mock.stop()
        rmSync(root, { recursive: true, force: true })
      }
      expect(outcomes).toHaveLength(6 * 26)
      expect(mock.requests().total).toBe(6 * 26)
    },
    600_000
  )
})
