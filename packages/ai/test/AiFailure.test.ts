import { AiError } from "@effect/ai"
import { describe, expect, it } from "@effect/vitest"
import { Failure, Place } from "@fallback/core"
import { DateTime, Duration } from "effect"

import { AiFailure } from "../src/index.js"

const place = new Place.Place({ cli: "anthropic", account: "work", model: "claude-x" })
const now = Date.parse("2026-11-30T12:00:00Z")
const key = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123"
const bearer = "sk-proj-abcdefghijklmnopqrstuvwxyz4567"

const request = {
  method: "POST" as const,
  url: `https://api.example.com/v1/messages?key=${key}`,
  urlParams: [["key", key]] as Array<[string, string]>,
  hash: { _tag: "None" } as any,
  headers: { "x-api-key": key, authorization: `Bearer ${bearer}`, "content-type": "application/json" }
}

const response = (status: number, body: string, headers: Record<string, string> = {}) =>
  new AiError.HttpResponseError({
    module: "Client",
    method: "create",
    reason: "StatusCode",
    request,
    response: { status, headers: { "content-type": "application/json", ...headers } },
    body
  }, { disableValidation: true })

const anthropicError = (type: string, message: string) => JSON.stringify({ type: "error", error: { type, message } })
const openAiError = (code: string, message: string) => JSON.stringify({ error: { message, type: code, code } })

type Case = readonly [string, AiError.AiError, Failure.Kind, ((failure: any) => void)?]

const cases: ReadonlyArray<Case> = [
  [
    "429 with retry-after",
    response(429, anthropicError("rate_limit_error", "rate limited"), { "Retry-After": "30" }),
    "RateLimited",
    (f) => expect(Duration.toMillis(f.retryAfter)).toBe(30_000)
  ],
  [
    "429 with only Anthropic's reset headers",
    response(429, anthropicError("rate_limit_error", "rate limited"), {
      "anthropic-ratelimit-requests-reset": "2026-11-30T12:00:45Z"
    }),
    "RateLimited",
    (f) => expect(Duration.toMillis(f.retryAfter)).toBe(45_000)
  ],
  [
    "429 that is a spent quota, with OpenAI's reset headers",
    response(429, openAiError("insufficient_quota", "You exceeded your current quota"), {
      "x-ratelimit-reset-requests": "20m0s"
    }),
    "QuotaExhausted",
    (f) => expect(DateTime.toEpochMillis(f.until)).toBe(now + 1_200_000)
  ],
  [
    // a reset past the longest a provider can ask for (30 minutes) is read as that
    "429 that is a spent quota, its reset header asking for an hour",
    response(429, openAiError("insufficient_quota", "You exceeded your current quota"), {
      "x-ratelimit-reset-requests": "1h0m0s"
    }),
    "QuotaExhausted",
    (f) => expect(DateTime.toEpochMillis(f.until)).toBe(now + 1_800_000)
  ],
  ["402", response(402, "{}"), "QuotaExhausted"],
  [
    "400 credit balance",
    response(400, anthropicError("invalid_request_error", "Your credit balance is too low")),
    "QuotaExhausted"
  ],
  [
    "529 overloaded, said as an overload",
    response(529, anthropicError("overloaded_error", "Overloaded")),
    "RateLimited",
    (f) => expect([f.reason, f.message]).toEqual(["overloaded", "anthropic@work is overloaded"])
  ],
  [
    "400 content_policy_violation: refused, with the provider's reason",
    response(
      400,
      openAiError("content_policy_violation", "Your request was rejected as a result of our safety system")
    ),
    "Refused",
    (f) => expect(f.message).toContain("Your request was rejected as a result of our safety system")
  ],
  [
    "400 Azure content filter",
    response(
      400,
      JSON.stringify({
        error: {
          message: "The response was filtered due to the prompt triggering Azure OpenAI's content management policy.",
          code: "content_filter",
          innererror: { code: "ResponsibleAIPolicyViolation", content_filter_result: { hate: { filtered: true } } }
        }
      })
    ),
    "Refused"
  ],
  [
    "an unknown error with Anthropic's refusal",
    new AiError.UnknownError({ module: "X", method: "y", description: "stop_reason: refusal" }),
    "Refused"
  ],
  ["408: the provider's own timeout", response(408, "{}"), "Timeout", (f) => expect(f.phase).toBe("provider")],
  [
    "504 gateway timeout",
    response(504, openAiError("timeout", "Gateway Timeout")),
    "Timeout",
    (f) => expect(f.phase).toBe("provider")
  ],
  [
    "transport: the request timed out (ETIMEDOUT)",
    new AiError.HttpRequestError({
      module: "Client",
      method: "create",
      reason: "Transport",
      request,
      description: "connect ETIMEDOUT 10.0.0.1:443"
    }, { disableValidation: true }),
    "Timeout",
    (f) =>
      expect(f.message).toBe(
        "anthropic@work timed out on its own side (could not reach https://api.example.com/v1/messages: connect ETIMEDOUT 10.0.0.1:443)"
      )
  ],
  ["503", response(503, openAiError("server_error", "The engine is currently overloaded")), "RateLimited"],
  ["401", response(401, anthropicError("authentication_error", `invalid x-api-key ${key}`)), "AuthRefused"],
  ["403", response(403, anthropicError("permission_error", "not allowed")), "AuthRefused"],
  ["404", response(404, anthropicError("not_found_error", "model: claude-x")), "ModelNotFound"],
  [
    "400 prompt too long",
    response(400, anthropicError("invalid_request_error", "prompt is too long: 200001 tokens")),
    "ContextTooLong"
  ],
  ["413", response(413, "{}"), "ContextTooLong"],
  ["500", response(500, anthropicError("api_error", "Internal server error")), "Unknown"],
  [
    "a body that could not be decoded",
    new AiError.HttpResponseError({
      module: "Client",
      method: "create",
      reason: "Decode",
      request,
      response: { status: 200, headers: {} },
      body: "<html>"
    }, { disableValidation: true }),
    "Unknown"
  ],
  [
    "transport: the provider was not reached",
    new AiError.HttpRequestError({
      module: "Client",
      method: "create",
      reason: "Transport",
      request,
      description: "ECONNREFUSED"
    }, {
      disableValidation: true
    }),
    "ConnectionLost"
  ],
  [
    "a request that could not be encoded",
    new AiError.HttpRequestError({ module: "Client", method: "create", reason: "Encode", request }, {
      disableValidation: true
    }),
    "Unknown"
  ],
  [
    "malformed output",
    new AiError.MalformedOutput({ module: "LanguageModel", method: "generateObject", description: "bad JSON" }),
    "Unknown"
  ],
  [
    "malformed input",
    new AiError.MalformedInput({ module: "LanguageModel", method: "generateText", description: "bad prompt" }),
    "Unknown"
  ],
  [
    "an unknown error saying overloaded",
    new AiError.UnknownError({ module: "X", method: "y", description: "overloaded_error" }),
    "RateLimited"
  ],
  [
    "an unknown error",
    new AiError.UnknownError({ module: "X", method: "y", description: `something odd, key=${key}` }),
    "Unknown"
  ]
]

const secretsIn = (text: string) => [key, bearer].filter((secret) => text.includes(secret))

describe("AiFailure.toFailure: every AiError shape is a failure kind", () => {
  it.each(cases.map(([name, error, kind, more]) => ({ name, error, kind, more })))("$name", ({ error, kind, more }) => {
    const failure = AiFailure.toFailure(error, place, now)
    expect(failure._tag).toBe(kind)
    expect(failure.place).toEqual(place)
    more?.(failure)
    expect(secretsIn(JSON.stringify(failure))).toEqual([])
    expect(secretsIn(failure.message)).toEqual([])
    expect(secretsIn(Failure.describe(failure))).toEqual([])
  })
})

describe("AiFailure.masked: an AiError handed back holds no key", () => {
  it.each(cases.map(([name, error]) => ({ name, error })))("$name", ({ error }) => {
    const shown = AiFailure.masked(error)
    expect(shown._tag).toBe(error._tag)
    expect(secretsIn(JSON.stringify(shown))).toEqual([])
    expect(secretsIn(shown.message)).toEqual([])
    expect(secretsIn(String(shown))).toEqual([])
  })

  it("the original really held the keys (so the masking is what removes them)", () => {
    expect(secretsIn(JSON.stringify(cases[0]![1]))).toEqual([key, bearer])
  })
})
