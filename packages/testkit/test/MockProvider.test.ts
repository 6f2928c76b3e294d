import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"

import * as MockProvider from "../src/MockProvider.js"
import { answerText, calls, causeCode, events, request, send, type Vendor, vendors } from "./calls.js"

describe("MockProvider", () => {
  for (const vendor of vendors) {
    for (const stream of [true, false]) {
      it.live(`${vendor} answers${stream ? ", streamed" : ""}`, () =>
        Effect.gen(function*() {
          const mock = yield* MockProvider.make({ text: "the answer is 42" })
          const reply = yield* request(mock.url, calls[vendor]("some-model", stream))
          expect(reply.status).toBe(200)
          expect(reply.headers.get("content-type")).toBe(stream ? "text/event-stream" : "application/json")
          expect(answerText(vendor, stream, reply.text)).toBe("the answer is 42")
        }))
    }
  }

  it.live("Anthropic's stream ends with message_stop; Responses' with response.completed; Chat's with [DONE]", () =>
    Effect.gen(function*() {
      const mock = yield* MockProvider.make()
      const anthropic = yield* request(mock.url, calls.anthropic("m", true))
      expect(events(anthropic.text).at(-1).type).toBe("message_stop")
      const responses = yield* request(mock.url, calls.responses("m", true))
      expect(events(responses.text).at(-1)).toMatchObject({
        type: "response.completed",
        response: { status: "completed" }
      })
      const chat = yield* request(mock.url, calls.chat("m", true))
      expect(chat.text.trim().endsWith("data: [DONE]")).toBe(true)
      const gemini = yield* request(mock.url, calls.gemini("m", true))
      expect(events(gemini.text).at(-1).candidates[0].finishReason).toBe("STOP")
    }))

  const errorShapes: ReadonlyArray<
    readonly [MockProvider.Fault, Vendor, number, (body: any, headers: Headers) => void]
  > = [
    ["rate-limit", "anthropic", 429, (body, headers) => {
      expect(body).toMatchObject({ type: "error", error: { type: "rate_limit_error" } })
      expect(headers.get("retry-after")).toBe("7")
      // the reset is the retry-after's 7 s from when the response was sent (its Date, to the second)
      const after = Date.parse(headers.get("anthropic-ratelimit-requests-reset")!) - Date.parse(headers.get("date")!)
      expect(after).toBeGreaterThanOrEqual(7_000)
      expect(after).toBeLessThan(8_000)
    }],
    ["rate-limit", "chat", 429, (body, headers) => {
      expect(body.error.code).toBe("rate_limit_exceeded")
      expect(headers.get("retry-after")).toBe("7")
      expect(headers.get("x-ratelimit-reset-requests")).toBe("7s")
    }],
    ["rate-limit", "gemini", 429, (body) => {
      expect(body.error).toMatchObject({ code: 429, status: "RESOURCE_EXHAUSTED" })
      expect(body.error.details[0].retryDelay).toBe("7s")
    }],
    ["quota", "anthropic", 400, (body) => expect(body.error.message).toMatch(/credit balance is too low/)],
    ["quota", "chat", 429, (body) => expect(body.error).toMatchObject({ type: "insufficient_quota" })],
    ["quota", "responses", 429, (body) => expect(body.error.code).toBe("insufficient_quota")],
    ["quota", "gemini", 429, (body) => expect(body.error.message).toMatch(/exceeded your current quota/)],
    ["overloaded", "anthropic", 529, (body) => expect(body.error.type).toBe("overloaded_error")],
    ["overloaded", "chat", 503, (body) => expect(body.error.message).toMatch(/overloaded/)],
    ["overloaded", "gemini", 503, (body) => expect(body.error.status).toBe("UNAVAILABLE")],
    ["server-error", "anthropic", 500, (body) => expect(body.error.type).toBe("api_error")],
    ["server-error", "responses", 500, (body) => expect(body.error.type).toBe("server_error")],
    ["unauthorized", "anthropic", 401, (body) => expect(body.error.type).toBe("authentication_error")],
    ["unauthorized", "chat", 401, (body) => {
      expect(body.error.code).toBe("invalid_api_key")
      expect(body.error.message).not.toContain("test-key")
    }],
    ["unauthorized", "gemini", 400, (body) => expect(body.error.details[0].reason).toBe("API_KEY_INVALID")],
    ["forbidden", "anthropic", 403, (body) => expect(body.error.type).toBe("permission_error")],
    ["forbidden", "gemini", 403, (body) => expect(body.error.status).toBe("PERMISSION_DENIED")],
    ["model-not-found", "anthropic", 404, (body) => expect(body.error).toMatchObject({ type: "not_found_error" })],
    ["model-not-found", "chat", 404, (body) => expect(body.error.code).toBe("model_not_found")],
    ["model-not-found", "gemini", 404, (body) => expect(body.error.status).toBe("NOT_FOUND")],
    ["context-too-long", "anthropic", 400, (body) => expect(body.error.message).toMatch(/prompt is too long/)],
    ["context-too-long", "chat", 400, (body) => expect(body.error.code).toBe("context_length_exceeded")],
    ["context-too-long", "gemini", 400, (body) => expect(body.error.message).toMatch(/exceeds the maximum/)]
  ]

  for (const [fault, vendor, status, check] of errorShapes) {
    it.live(`${fault} through ${vendor}: ${status} in the vendor's shape`, () =>
      Effect.gen(function*() {
        const mock = yield* MockProvider.make()
        yield* mock.script([{ fault, retryAfter: 7 }])
        const reply = yield* request(mock.url, calls[vendor]("m", true))
        expect(reply.status).toBe(status)
        check(JSON.parse(reply.text), reply.headers)
      }))
  }

  it.live("bad-gateway is an HTML page whoever is asked", () =>
    Effect.gen(function*() {
      const mock = yield* MockProvider.make()
      yield* mock.script([{ fault: "bad-gateway" }])
      for (const vendor of vendors) {
        const reply = yield* request(mock.url, calls[vendor]("m", true))
        expect([reply.status, reply.headers.get("content-type")]).toEqual([502, "text/html"])
        expect(reply.text).toContain("<h1>502 Bad Gateway</h1>")
      }
    }))

  it.live("stream-error: the stream opens with 200, then carries the vendor's in-band error", () =>
    Effect.gen(function*() {
      const mock = yield* MockProvider.make()
      yield* mock.script([{ fault: "stream-error" }])
      const anthropic = yield* request(mock.url, calls.anthropic("m", true))
      expect(anthropic.status).toBe(200)
      expect(anthropic.text).toContain("event: error\n")
      expect(events(anthropic.text).at(-1)).toMatchObject({ type: "error", error: { type: "overloaded_error" } })
      const chat = yield* request(mock.url, calls.chat("m", true))
      expect(events(chat.text).at(-1).error.type).toBe("server_error")
      const responses = yield* request(mock.url, calls.responses("m", true))
      expect(events(responses.text).at(-1)).toMatchObject({ type: "response.failed", response: { status: "failed" } })
      const gemini = yield* request(mock.url, calls.gemini("m", true))
      expect(events(gemini.text).at(-1).error.status).toBe("UNAVAILABLE")
    }))

  it.live("reset: the connection is reset without a reply", () =>
    Effect.gen(function*() {
      const mock = yield* MockProvider.make()
      const error = yield* Effect.flip(Effect.tryPromise(() => send(mock.url, calls.chat("gpt-fault-reset", false))))
      expect(causeCode(error.cause)).toBe("ECONNRESET")
    }))

  it.live("refused: refusedUrl refuses; a drawn refused stops the listener for downFor, then it listens again", () =>
    Effect.gen(function*() {
      const mock = yield* MockProvider.make({ downFor: 300 })
      const refused = yield* Effect.flip(Effect.tryPromise(() => send(mock.refusedUrl, calls.chat("m", false))))
      expect(causeCode(refused.cause)).toBe("ECONNREFUSED")
      yield* Effect.flip(Effect.tryPromise(() => send(mock.url, calls.chat("m-fault-refused", false))))
      const next = yield* Effect.flip(Effect.tryPromise(() => send(mock.url, calls.chat("m", false))))
      expect(causeCode(next.cause)).toBe("ECONNREFUSED")
      yield* Effect.sleep("500 millis")
      expect((yield* request(mock.url, calls.chat("m", false))).status).toBe(200)
    }))

  it.live("hang: nothing arrives, not even headers", () =>
    Effect.gen(function*() {
      const mock = yield* MockProvider.make()
      yield* mock.script([{ fault: "hang" }])
      const error = yield* Effect.flip(
        Effect.tryPromise(() => send(mock.url, calls.anthropic("m", true), AbortSignal.timeout(300)))
      )
      expect((error.cause as Error).name).toBe("TimeoutError")
    }))

  it.live("stall: the stream opens and sends a piece, then stops moving", () =>
    Effect.gen(function*() {
      const mock = yield* MockProvider.make({ text: "one two three" })
      yield* mock.script([{ fault: "stall" }])
      const response = yield* Effect.promise(() => send(mock.url, calls.anthropic("m", true)))
      expect(response.status).toBe(200)
      const reader = response.body!.getReader()
      const decoder = new TextDecoder()
      let seen = ""
      while (!seen.includes("content_block_delta")) {
        seen += decoder.decode((yield* Effect.promise(() => reader.read())).value)
      }
      const more = yield* Effect.promise(() => reader.read()).pipe(Effect.timeout("300 millis"), Effect.option)
      expect(more._tag).toBe("None")
    }))

  it.live("cut: the body stops mid-stream with a closed socket", () =>
    Effect.gen(function*() {
      const mock = yield* MockProvider.make()
      yield* mock.script([{ fault: "cut" }])
      const response = yield* Effect.promise(() => send(mock.url, calls.chat("m", true)))
      expect(response.status).toBe(200)
      const error = yield* Effect.flip(Effect.tryPromise(() => response.text()))
      expect(causeCode(error.cause)).toBe("UND_ERR_SOCKET")
    }))

  it.live("faults are chosen by model name, by key, by script (used up after times), else answered", () =>
    Effect.gen(function*() {
      const mock = yield* MockProvider.make()
      expect((yield* request(mock.url, calls.chat("gpt-5.5-fault-quota", false))).status).toBe(429)
      const byKey = { ...calls.anthropic("claude", false), headers: { "x-api-key": "key-fault-unauthorized" } }
      expect((yield* request(mock.url, byKey)).status).toBe(401)
      yield* mock.script([{ fault: "overloaded", model: "busy", times: 2 }, {
        fault: "model-not-found",
        route: "gemini"
      }])
      const busy = yield* Effect.forEach([1, 2, 3], () => request(mock.url, calls.anthropic("busy", false)))
      expect(busy.map((reply) => reply.status)).toEqual([529, 529, 200])
      expect((yield* request(mock.url, calls.gemini("busy", false))).status).toBe(404)
      expect((yield* request(mock.url, calls.chat("busy", false))).status).toBe(200)
    }))

  it.live("a context window given for a model turns a longer prompt into context-too-long", () =>
    Effect.gen(function*() {
      const mock = yield* MockProvider.make({ contextWindows: { small: 10 } })
      const long = {
        ...calls.chat("small", false),
        body: { model: "small", messages: [{ role: "user", content: "x".repeat(80) }] }
      }
      expect((yield* request(mock.url, long)).status).toBe(400)
      expect((yield* request(mock.url, calls.chat("small", false))).status).toBe(200)
    }))

  it.live("counts requests per route, model, key and fault", () =>
    Effect.gen(function*() {
      const mock = yield* MockProvider.make()
      yield* request(mock.url, calls.anthropic("a", true))
      yield* request(mock.url, calls.anthropic("a-fault-rate-limit", true))
      yield* request(mock.url, calls.gemini("g", true))
      const counts = yield* mock.requests
      expect(counts.total).toBe(3)
      expect(counts.byRoute).toEqual({ anthropic: 2, gemini: 1 })
      expect(counts.byModel).toEqual({ a: 1, "a-fault-rate-limit": 1, g: 1 })
      expect(counts.byKey).toEqual({ "test-key": 3 })
      expect(counts.byFault).toEqual({ answer: 2, "rate-limit": 1 })
      yield* mock.reset
      expect((yield* mock.requests).total).toBe(0)
    }))

  it.live("another process scripts it and reads its counts over HTTP", () =>
    Effect.gen(function*() {
      const mock = yield* MockProvider.make()
      const control = (path: string, body?: unknown) =>
        Effect.promise(() =>
          fetch(`${mock.url}/_mock/${path}`, body === undefined ? {} : { method: "POST", body: JSON.stringify(body) })
            .then((response) => response.json() as Promise<Record<string, unknown>>)
        )
      yield* control("script", { rules: [{ fault: "forbidden", times: 1 }] })
      expect((yield* request(mock.url, calls.responses("m", true))).status).toBe(403)
      expect((yield* request(mock.url, calls.responses("m", true))).status).toBe(200)
      expect(yield* control("requests")).toMatchObject({ total: 2, byRoute: { responses: 2 } })
      yield* control("reset", {})
      expect(yield* control("requests")).toMatchObject({ total: 0 })
      expect((yield* control("script", { rules: [{ fault: "on-fire" }] })).error).toMatch(
        /no fault "on-fire"; one of answer/
      )
    }))

  it.live("closing the scope stops the server and ends a hanging request", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const mock = yield* Scope.provide(MockProvider.make(), scope)
      yield* mock.script([{ fault: "hang" }])
      const hanging = send(mock.url, calls.anthropic("m", true)).then(() => "answered", () => "ended")
      yield* Effect.sleep("50 millis")
      yield* Scope.close(scope, Exit.void)
      expect(yield* Effect.promise(() => hanging)).toBe("ended")
      const after = yield* Effect.flip(Effect.tryPromise(() => send(mock.url, calls.chat("m", false))))
      expect(causeCode(after.cause)).toBe("ECONNREFUSED")
    }))

  it("plain Node: start, answer, stop; its lifetime bounds it", async () => {
    const mock = await MockProvider.start({ lifetime: 200 })
    expect((await send(mock.url, calls.chat("m", false))).status).toBe(200)
    await new Promise((resolve) => setTimeout(resolve, 400))
    await expect(send(mock.url, calls.chat("m", false))).rejects.toThrow()
    await mock.stop()
  })
})
