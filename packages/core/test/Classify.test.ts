/**
 * One classifier for every backend: a status is the same kind whichever way it arrived (the CLIs'
 * known misreadings are in backends' Misreadings.test.ts).
 */
import { describe, expect, it } from "@effect/vitest"
import { byMessage, byStatus, classify } from "../src/Classify.js"
import * as Place from "../src/Place.js"

const place = new Place.Place({ cli: "local", model: "m" })

describe("one classifier", () => {
  it("each status is one kind, through a CLI or over HTTP", () => {
    for (const status of [400, 401, 402, 403, 404, 408, 413, 429, 500, 502, 503, 504, 529]) {
      const cli = byStatus(status, `HTTP ${status}`, place)._tag
      const http = classify({ status, headers: {}, body: `HTTP ${status}` }, place, 0)._tag
      expect([status, http]).toEqual([status, cli])
    }
    expect(byStatus(502, "Bad Gateway", place)._tag).toBe("ConnectionLost")
    expect(byStatus(402, "Payment Required", place)._tag).toBe("QuotaExhausted")
    expect(classify({ status: 403, headers: {}, body: "Forbidden" }, place, 0)).toMatchObject({
      _tag: "AuthRefused",
      status: 403
    })
  })

  it("the same words are the same kind either way", () => {
    for (
      const words of [
        "You exceeded your current quota",
        "prompt is too long: 210000 tokens > 200000 maximum",
        "Overloaded",
        "invalid x-api-key",
        "model_not_found",
        "database is locked"
      ]
    ) {
      expect(classify({ headers: {}, body: JSON.stringify({ error: { message: words } }) }, place, 0)._tag)
        .toBe(byMessage(words, place)._tag)
    }
  })

  it("\"upstream error\" is not a stream that broke (issue 12 #16), nor is a word ending in 'terminated'", () => {
    expect(byMessage("upstream error", place)._tag).toBe("Unknown")
    expect(byMessage("undetermined failure", place)._tag).toBe("Unknown")
    expect(byMessage("stream error: the connection closed", place)._tag).toBe("ConnectionLost")
  })
})

describe("timeouts, overloads and refusals, in any backend's words (issue 22)", () => {
  it("a provider's or CLI's own timeout is Timeout, not Unresponsive, ConnectionLost or Unknown", () => {
    for (
      const words of [
        "connect ETIMEDOUT 10.0.0.1:443",
        "request timed out after 600000ms",
        "Request timeout",
        "fetch failed: ETIMEDOUT",
        "DEADLINE_EXCEEDED: the model took too long"
      ]
    ) expect([words, byMessage(words, place)]).toMatchObject([words, { _tag: "Timeout", phase: "provider" }])
    expect(byStatus(408, "Request Timeout", place)).toMatchObject({ _tag: "Timeout", phase: "provider" })
    expect(byStatus(504, "Gateway Timeout", place)).toMatchObject({ _tag: "Timeout", phase: "provider" })
    expect(byStatus(502, "Bad Gateway", place)._tag).toBe("ConnectionLost")
  })

  it("a stream gone idle is still Unresponsive, and a header's timeout=5 is no timeout", () => {
    expect(byMessage("stream idle timeout", place)._tag).toBe("Unresponsive")
    expect(byStatus(500, "{\"keep-alive\":\"timeout=5\"} Internal Server Error", place)._tag).toBe("Unknown")
  })

  it("an overload is RateLimited said as overloaded; a rate limit is not", () => {
    for (
      const [status, words] of [[529, "Overloaded"], [503, "The server is overloaded"], [
        undefined,
        "overloaded_error"
      ]] as const
    ) {
      const failure = status === undefined ? byMessage(words, place) : byStatus(status, words, place)
      expect(failure).toMatchObject({ _tag: "RateLimited", reason: "overloaded" })
      expect(failure.message).toBe("local is overloaded")
    }
    expect(byStatus(429, "Too Many Requests", place)).not.toHaveProperty("reason", "overloaded")
    expect(byStatus(503, "Service Unavailable", place).message).toBe("local is rate-limited")
  })

  it("a refused prompt is Refused whatever status it came with", () => {
    for (
      const [status, words] of [
        [400, "content_policy_violation: Your request was rejected as a result of our safety system"],
        [400, "content_filter ResponsibleAIPolicyViolation"],
        [undefined, "stop_reason: refusal"]
      ] as const
    ) {
      const failure = status === undefined ? byMessage(words, place) : byStatus(status, words, place)
      expect(failure._tag).toBe("Refused")
    }
  })
})
