import { describe, expect, it } from "@effect/vitest"
import { DateTime, Duration, Match, Result, Schema } from "effect"
import { Failure, Place } from "../src/index.js"

const place = Result.getOrThrow(Place.parse("claude@work/claude-opus-5"))
const said = Failure.said("upstream said no")

const one: { readonly [K in Failure.Kind]: Failure.Failure & { readonly _tag: K } } = {
  RateLimited: new Failure.RateLimited({ place, said, retryAfter: Duration.seconds(30) }),
  QuotaExhausted: new Failure.QuotaExhausted({ place, said, until: DateTime.makeUnsafe("2026-12-01T00:00:00Z") }),
  AuthRefused: new Failure.AuthRefused({ place, said }),
  ModelNotFound: new Failure.ModelNotFound({ place, said }),
  StoreBusy: new Failure.StoreBusy({ place, said }),
  ConnectionLost: new Failure.ConnectionLost({ place, said }),
  Killed: new Failure.Killed({ place, said, signal: "SIGKILL" }),
  NotInstalled: new Failure.NotInstalled({ place, said, install: "npm i -g @anthropic-ai/claude-code" }),
  ContextTooLong: new Failure.ContextTooLong({ place, said }),
  Timeout: new Failure.Timeout({ place, said, phase: "first-byte", after: Duration.seconds(30) }),
  Unresponsive: new Failure.Unresponsive({ place, said }),
  Unknown: new Failure.Unknown({ place, said }),
  ArgumentsRefused: new Failure.ArgumentsRefused({
    place,
    said: Failure.said("error: option '--permission-mode <mode>' argument 'yolo' is invalid."),
    argument: "--permission-mode yolo"
  }),
  Refused: new Failure.Refused({
    place,
    said: Failure.said("400: content_policy_violation: rejected by our safety system")
  })
}

describe("Failure", () => {
  it("describes each kind as the sentence a notice shows", () => {
    expect(Object.fromEntries(Failure.kinds.map((kind) => [kind, Failure.describe(one[kind])]))).toEqual({
      RateLimited: "claude@work is rate-limited and asked for a wait of 30s",
      QuotaExhausted: "claude@work has no quota left until 2026-12-01T00:00:00.000Z",
      AuthRefused: "claude@work refused the credentials (account work needs signing in again)",
      ModelNotFound: "claude@work has no model claude-opus-5 (retired, or never there)",
      StoreBusy: "claude@work's own store is busy (two turns share one database)",
      ConnectionLost: "claude@work lost the connection (the socket, not the session)",
      Killed: "claude@work was killed by SIGKILL rather than answering (the machine may be out of memory)",
      NotInstalled: "claude is not installed here (install it with: npm i -g @anthropic-ai/claude-code)",
      ContextTooLong: "the prompt is longer than claude-opus-5's context window",
      Timeout: "claude@work sent nothing within 30s (the first-byte limit; --first-byte gives it longer)",
      Unresponsive: "claude@work stopped streaming without an error",
      Unknown: "claude@work failed: upstream said no",
      ArgumentsRefused:
        "claude refused the argument --permission-mode yolo fallback gave it: error: option '--permission-mode <mode>' argument 'yolo' is invalid.",
      Refused:
        "claude@work refused the prompt by its content policy: 400: content_policy_violation: rejected by our safety system"
    })
  })

  it("uses the sentence as the error message", () => {
    expect(one.RateLimited.message).toBe(Failure.describe(one.RateLimited))
    expect(new Failure.RateLimited({ place, said }).message).toBe("claude@work is rate-limited")
  })

  it("an overload is said as one, though it is answered as a rate limit", () => {
    expect(new Failure.RateLimited({ place, said, reason: "overloaded" }).message).toBe("claude@work is overloaded")
    expect(new Failure.RateLimited({ place, said, reason: "rate-limit" }).message).toBe("claude@work is rate-limited")
  })

  it("a timeout of the provider's own says so, with what it said", () => {
    const own = new Failure.Timeout({
      place,
      said: Failure.said("504: Gateway Timeout"),
      phase: "provider",
      after: Duration.zero
    })
    expect(own.message).toBe("claude@work timed out on its own side (504: Gateway Timeout)")
  })

  it("arguments refused with no argument named say the CLI's words", () => {
    expect(new Failure.ArgumentsRefused({ place, said: Failure.said("Unknown arguments: x") }).message).toBe(
      "claude refused the arguments fallback gave it: Unknown arguments: x"
    )
  })

  const secrets = [
    ["Authorization: Bearer abcdefghijklmnop1234", "Authorization: Bearer ***"],
    ["invalid x-api-key sk-ant-api03-AbCdEf0123456789xyz", "invalid x-api-key sk-ant-***"],
    ["Incorrect API key provided: sk-proj-abcDEF1234567890ghij", "Incorrect API key provided: sk-proj-***"],
    ["key=AIzaSyA1234567890abcdefghijklmn rejected", "key=AIza*** rejected"],
    ["{\"api_key\": \"zzzz-yyyy-xxxx-wwww\"}", "{\"api_key\": \"***\"}"],
    ["token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N", "token ***"],
    ["ghp_0123456789abcdefABCDEF0123 is not valid", "ghp_*** is not valid"]
  ] as const

  it.each(secrets)("masks %j before it is stored", (text, masked) => {
    const failure = new Failure.AuthRefused({ place, said: Failure.said(text) })
    expect(failure.said).toBe(masked)
    expect(failure.message).not.toContain(text)
  })

  it("masks secrets when a failure is decoded from outside too", () => {
    const decoded = Schema.decodeUnknownSync(Failure.Failure)({
      _tag: "Unknown",
      place: { cli: "codex", model: "gpt-5" },
      said: "bad Bearer abcdefghijklmnopqrstu"
    })
    expect(decoded.said).toBe("bad Bearer ***")
    expect(decoded.message).toMatch(/^codex(@\w+)? failed: bad Bearer \*\*\*$/)
  })

  it("round-trips every kind through its schema", () => {
    for (const kind of Failure.kinds) {
      const encoded = Schema.encodeSync(Failure.Failure)(one[kind])
      const decoded = Schema.decodeUnknownSync(Failure.Failure)(JSON.parse(JSON.stringify(encoded)))
      expect(decoded._tag).toBe(kind)
      expect(decoded.message).toBe(one[kind].message)
    }
  })

  it("matching every kind is checked by the compiler", () => {
    const handled = {
      RateLimited: () => 1,
      QuotaExhausted: () => 2,
      AuthRefused: () => 3,
      ModelNotFound: () => 4,
      StoreBusy: () => 5,
      ConnectionLost: () => 6,
      Killed: () => 7,
      NotInstalled: () => 8,
      ContextTooLong: () => 9,
      Timeout: () => 10,
      Unresponsive: () => 11,
      Unknown: () => 12,
      ArgumentsRefused: () => 13,
      Refused: () => 14
    }
    const number = Match.type<Failure.Failure>().pipe(Match.tagsExhaustive(handled))
    expect(Failure.kinds.map((kind) => number(one[kind]))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14])

    class Melted extends Schema.TaggedError<Melted>()("Melted", { place: Place.Place }) {}
    type WithAKindMore = Failure.Failure | Melted
    // @ts-expect-error a kind added to the union without a handler does not type-check
    Match.type<WithAKindMore>().pipe(Match.tagsExhaustive(handled))
  })
})
