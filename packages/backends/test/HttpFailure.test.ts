import { describe, expect, it } from "@effect/vitest"
import { classify } from "@fallback/core/Classify"
import * as Place from "@fallback/core/Place"
import { DateTime, Duration } from "effect"

const place = Place.Place.make({ cli: "local", model: "qwen3:8b" })
const now = Date.parse("2026-01-01T00:00:00Z")

const kindOf = (status: number | undefined, body: unknown, headers: Record<string, string> = {}) =>
  classify({ status, headers, body: typeof body === "string" ? body : JSON.stringify(body) }, place, now)

describe("classifying what an HTTP provider refused with", () => {
  it("the words decide where the status is shared: an OpenAI rate limit that mentions billing is still a rate limit", () => {
    const rate = kindOf(429, {
      error: {
        message: "Rate limit reached for gpt-4o on tokens per min (TPM). You can increase your rate limit by adding " +
          "a payment method at https://platform.openai.com/account/billing.",
        type: "tokens",
        code: "rate_limit_exceeded"
      }
    })
    expect(rate._tag).toBe("RateLimited")
    const quota = kindOf(429, { error: { message: "You exceeded your current quota", type: "insufficient_quota" } })
    expect(quota._tag).toBe("QuotaExhausted")
  })

  it("Anthropic's billing shapes are a spent quota: 402 billing_error, a 400 credit balance, a 429 spend limit", () => {
    expect(kindOf(402, { type: "error", error: { type: "billing_error", message: "billing" } })._tag).toBe(
      "QuotaExhausted"
    )
    expect(
      kindOf(400, {
        type: "error",
        error: { type: "invalid_request_error", message: "Your credit balance is too low" }
      })
        ._tag
    ).toBe("QuotaExhausted")
    expect(
      kindOf(429, {
        type: "error",
        error: { type: "rate_limit_error", message: "limit", details: { error_code: "enforced_spend_limit_reached" } }
      })._tag
    ).toBe("QuotaExhausted")
  })

  it("local servers' shapes: Ollama's plain error, vLLM's object error, llama.cpp's numeric code", () => {
    expect(kindOf(404, { error: "model \"qwen3:8b\" not found, try pulling it first" })._tag).toBe("ModelNotFound")
    expect(
      kindOf(400, {
        object: "error",
        message: "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens",
        type: "BadRequestError",
        code: 400
      })._tag
    ).toBe("ContextTooLong")
    expect(kindOf(503, { error: { code: 503, message: "Loading model", type: "unavailable_error" } })._tag)
      .toBe("RateLimited")
    expect(
      kindOf(400, {
        error: {
          code: 400,
          message: "the request exceeds the available context size, try increasing it",
          type: "exceed_context_size_error"
        }
      })._tag
    ).toBe("ContextTooLong")
  })

  it("an error inside a stream, with no status, is read from its type", () => {
    expect(kindOf(undefined, { type: "error", error: { type: "overloaded_error", message: "Overloaded" } })._tag)
      .toBe("RateLimited")
    expect(kindOf(undefined, { error: { message: "boom", type: "server_error" } })._tag).toBe("Unknown")
  })

  it("retry-after in seconds, in millis, as an HTTP date, or else the latest reset header, is the rate limit's wait", () => {
    const wait = (headers: Record<string, string>) => {
      const failure = kindOf(429, { error: { message: "slow down" } }, headers)
      return failure._tag === "RateLimited" && failure.retryAfter ? Duration.toMillis(failure.retryAfter) : undefined
    }
    expect(wait({ "retry-after": "12" })).toBe(12_000)
    expect(wait({ "retry-after-ms": "1500", "retry-after": "12" })).toBe(1500)
    expect(wait({ "retry-after": new Date(now + 90_000).toUTCString() })).toBe(90_000)
    expect(wait({ "x-ratelimit-reset-requests": "1m30s", "x-ratelimit-reset-tokens": "6ms" })).toBe(90_000)
    expect(wait({ "anthropic-ratelimit-tokens-reset": new Date(now + 20_000).toISOString() })).toBe(20_000)
    expect(wait({})).toBeUndefined()
  })

  it("a spent quota ends when its reset header says, else after retry-after, else it is not said", () => {
    const until = (headers: Record<string, string>) => {
      const failure = kindOf(429, { error: { type: "insufficient_quota", message: "quota" } }, headers)
      return failure._tag === "QuotaExhausted" && failure.until ? DateTime.toEpochMillis(failure.until) : undefined
    }
    expect(until({ "x-ratelimit-reset-requests": "20m" })).toBe(now + 1_200_000)
    // past the ceiling a provider can ask for (httpHeaders.ts longestAsked): 30 minutes
    expect(until({ "x-ratelimit-reset-requests": "1h" })).toBe(now + 1_800_000)
    expect(until({ "retry-after": "60" })).toBe(now + 60_000)
    expect(until({})).toBeUndefined()
  })

  it("a 502 HTML page is a gateway gone (ConnectionLost, as through a CLI), said as its words; a key the provider echoes is masked", () => {
    const gateway = kindOf(
      502,
      "<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>"
    )
    expect(gateway._tag).toBe("ConnectionLost")
    expect(gateway.said).toBe("502: 502 Bad Gateway 502 Bad Gateway")
    const echoed = kindOf(401, {
      error: { message: "Incorrect API key provided: sk-proj-abcdefghijklmnopqrstuvwxyz", code: "invalid_api_key" }
    })
    expect(echoed._tag).toBe("AuthRefused")
    expect(echoed.said).not.toContain("abcdefghijklmnop")
  })
})
