import { describe, expect, it } from "@effect/vitest"
import { Failure, Place } from "@fallback/core"
import { DateTime, Duration, Effect, Schema } from "effect"
import { AiError } from "effect/ai"

import { AiFailure } from "../src/index.js"

const place = new Place.Place({ cli: "anthropic", account: "work", model: "claude-x" })
const now = Date.parse("2026-11-30T12:00:00Z")
const key = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123"
const bearer = "sk-proj-abcdefghijklmnopqrstuvwxyz4567"

/** What a provider built on `effect/ai`'s own status mapping fails with: its reason, the refusal it read in `http`. */
const response = (status: number, body: string, headers: Record<string, string> = {}) =>
  AiError.make({
    module: "Client",
    method: "create",
    reason: AiError.reasonFromHttpStatus({
      status,
      description: `POST https://api.example.com/v1/messages?key=${key} failed`,
      http: {
        response: {
          status,
          headers: {
            "content-type": "application/json",
            "x-api-key": key,
            authorization: `Bearer ${bearer}`,
            ...headers
          }
        },
        body
      }
    })
  })

const error = (reason: AiError.AiErrorReason) => AiError.make({ module: "X", method: "y", reason })

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
    "a content-policy reason: refused, with the provider's reason",
    error(new AiError.ContentPolicyError({ description: "stop_reason: refusal" })),
    "Refused",
    (f) => expect(f.message).toContain("stop_reason: refusal")
  ],
  // Read from the reason, not its words: an UnknownError that says refusal is still Unknown.
  [
    "an unknown error whose words say refusal",
    error(new AiError.UnknownError({ description: "stop_reason: refusal" })),
    "Unknown"
  ],
  ["408: the provider's own timeout", response(408, "{}"), "Timeout", (f) => expect(f.phase).toBe("provider")],
  [
    "504 gateway timeout",
    response(504, openAiError("timeout", "Gateway Timeout")),
    "Timeout",
    (f) => expect(f.phase).toBe("provider")
  ],
  // A transport error is a lost connection whatever its words say (v3 read "ETIMEDOUT" in them as Timeout).
  [
    "transport: the request timed out (ETIMEDOUT)",
    error(
      new AiError.NetworkError({
        reason: "TransportError",
        method: "POST",
        url: `https://api.example.com/v1/messages?key=${key}`,
        description: "connect ETIMEDOUT 10.0.0.1:443"
      })
    ),
    "ConnectionLost",
    (f) => expect(f.said).toContain("connect ETIMEDOUT 10.0.0.1:443")
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
    error(new AiError.InvalidResponseError({ description: "<html>" })),
    "Unknown"
  ],
  [
    "transport: the provider was not reached",
    error(
      new AiError.NetworkError({
        reason: "TransportError",
        method: "POST",
        url: `https://api.example.com/v1/messages?key=${key}`,
        description: "ECONNREFUSED"
      })
    ),
    "ConnectionLost"
  ],
  [
    "a request that could not be encoded",
    error(
      new AiError.NetworkError({ reason: "EncodeError", method: "POST", url: "https://api.example.com/v1/messages" })
    ),
    "Unknown"
  ],
  ["malformed output", error(new AiError.InvalidOutputError({ description: "bad JSON" })), "Unknown"],
  ["malformed input", error(new AiError.InvalidUserInputError({ description: "bad prompt" })), "Unknown"],
  // Read from the reason, not its words (v3 read "overloaded_error" in an UnknownError's text as RateLimited).
  [
    "an unknown error saying overloaded",
    error(new AiError.UnknownError({ description: "overloaded_error" })),
    "Unknown"
  ],
  [
    "an unknown error",
    error(new AiError.UnknownError({ description: `something odd, key=${key}` })),
    "Unknown"
  ],
  [
    "a rate-limit reason with its own retryAfter",
    error(new AiError.RateLimitError({ retryAfter: Duration.seconds(12) })),
    "RateLimited",
    (f) => expect(Duration.toMillis(f.retryAfter)).toBe(12_000)
  ],
  [
    "a quota reason with its reset time",
    error(new AiError.QuotaExhaustedError({ resetAt: DateTime.makeUnsafe(now + 60_000) })),
    "QuotaExhausted",
    (f) => expect(DateTime.toEpochMillis(f.until)).toBe(now + 60_000)
  ],
  [
    "an invalid request naming the model",
    error(new AiError.InvalidRequestError({ parameter: "model", description: "no such model" })),
    "ModelNotFound"
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
    expect(shown.reason._tag).toBe(error.reason._tag)
    expect(secretsIn(JSON.stringify(shown))).toEqual([])
    expect(secretsIn(shown.message)).toEqual([])
    expect(secretsIn(String(shown))).toEqual([])
  })

  it("the original really held the keys (so the masking is what removes them)", () => {
    expect(secretsIn(JSON.stringify(cases[0]![1]))).toEqual([key, bearer])
  })
})

describe("AiFailure: failure kinds and AiError reasons, each way", () => {
  it.prop("toReason then fromReason is the same failure, at the same place", { made: Failure.Failure }, ({ made }) => {
    // a failure as its schema holds it (decoding masks what it said)
    const failure = Schema.decodeUnknownSync(Failure.Failure)(Schema.encodeSync(Failure.Failure)(made))
    const back = AiFailure.fromReason(AiFailure.toReason(failure), failure.place, now)
    expect(Schema.encodeSync(Failure.Failure)(back)).toEqual(Schema.encodeSync(Failure.Failure)(failure))
    expect(AiFailure.kindOf(error(AiFailure.toReason(failure)))).toBe(failure._tag)
  })

  it.prop(
    "a reason read with no note keeps the kind and fields it can hold",
    { failure: Failure.Failure },
    ({ failure }) => {
      const reason = AiFailure.toReason(failure)
      const bare = new (reason.constructor as any)({ ...reason, metadata: {} }) as AiError.AiErrorReason
      const back = AiFailure.fromReason(bare, failure.place, now)
      const kept: Partial<Record<Failure.Kind, Failure.Kind>> = {
        RateLimited: "RateLimited",
        QuotaExhausted: "QuotaExhausted",
        AuthRefused: "AuthRefused",
        ModelNotFound: "ModelNotFound",
        ContextTooLong: "ContextTooLong",
        Refused: "Refused",
        ArgumentsRefused: "ArgumentsRefused",
        ConnectionLost: "ConnectionLost",
        Unknown: "Unknown"
      }
      expect(back._tag).toBe(kept[failure._tag] ?? "Unknown")
      if (failure._tag === "RateLimited" && back._tag === "RateLimited") {
        expect(back.retryAfter).toEqual(
          failure.retryAfter
        )
      }
      if (failure._tag === "QuotaExhausted" && back._tag === "QuotaExhausted") expect(back.until).toEqual(failure.until)
      if (
        failure._tag === "AuthRefused" && back._tag === "AuthRefused" &&
        (failure.status === 401 || failure.status === 403)
      ) {
        expect(back.status).toBe(failure.status)
      }
    }
  )

  it.prop("every reason is a failure kind at the place, and that kind's reason again is the same kind", {
    reason: Schema.Union([
      AiError.RateLimitError,
      AiError.QuotaExhaustedError,
      AiError.AuthenticationError,
      AiError.ContentPolicyError,
      AiError.InvalidRequestError,
      AiError.InternalProviderError,
      AiError.InvalidOutputError,
      AiError.UnknownError
    ])
  }, ({ reason }) => {
    const failure = AiFailure.fromReason(reason, place, now)
    expect(failure.place).toEqual(place)
    expect(AiFailure.fromReason(AiFailure.toReason(failure), place, now)._tag).toBe(failure._tag)
  })

  it.effect("an Effect 4 program catches a chain's failure by its reason, the kind in a typed field", () =>
    Effect.gen(function*() {
      const limited = new Failure.RateLimited({
        place,
        said: Failure.said("slow down"),
        retryAfter: Duration.seconds(30)
      })
      const caught = yield* Effect.fail(error(AiFailure.toReason(limited))).pipe(
        Effect.catchReason(
          "AiError",
          "RateLimitError",
          (reason) =>
            Effect.succeed({
              after: reason.retryAfter,
              kind: reason.metadata.fallback?.kind,
              at: reason.metadata.fallback?.place
            })
        )
      )
      expect(caught.kind).toBe("RateLimited")
      expect(caught.at).toBe("anthropic@work/claude-x")
      expect(Duration.toMillis(caught.after!)).toBe(30_000)
    }))
})
