/**
 * The faults that take time (slow, slow-token, flap), on the mock's clock — the TestClock under
 * `it.effect` — and the request log: when each came and how its reply ended.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as TestClock from "effect/testing/TestClock"

import * as MockProvider from "../src/MockProvider.js"
import { calls, request, send } from "./calls.js"
import { chatText, lines, real } from "./crash.js"

const text = "the answer is 42, said slowly"

/** A request in flight: whether its headers came, and its reply once it has come. */
const inFlight = (url: string, model: string, stream: boolean) => {
  const state = { headers: false }
  const reply = send(url, calls.chat(model, stream)).then(async (response) => {
    state.headers = true
    return { status: response.status, text: await response.text() }
  })
  return { state, reply }
}

describe("the mock's clock", () => {
  it.effect("slow-<ms>: not a byte until the mock's clock has moved ms, then the whole reply", () =>
    Effect.gen(function*() {
      const mock = yield* MockProvider.make({ text })
      for (const stream of [false, true]) {
        const slow = inFlight(mock.url, "gpt-fault-slow-5000", stream)
        yield* real(150)
        yield* TestClock.adjust("4999 millis")
        yield* real(150)
        expect(slow.state.headers).toBe(false)
        yield* TestClock.adjust("1 millis")
        const reply = yield* Effect.promise(() => slow.reply)
        expect(reply.status).toBe(200)
        expect(stream ? chatText(reply.text) : JSON.parse(reply.text).choices[0].message.content).toBe(text)
      }
      const log = (yield* mock.requests).log
      expect(log.map((entry) => [entry.fault, entry.at, entry.ended])).toEqual([
        ["slow", 0, "complete"],
        ["slow", 5000, "complete"]
      ])
    }))

  it.effect("slow-token-<ms>: headers and the opening frames at once, the first content after ms", () =>
    Effect.gen(function*() {
      const mock = yield* MockProvider.make({ text })
      const response = yield* Effect.promise(() => send(mock.url, calls.chat("gpt-fault-slow-token-3000", true)))
      expect(response.status).toBe(200)
      const reader = response.body!.getReader()
      const decoder = new TextDecoder()
      const first = decoder.decode((yield* Effect.promise(() => reader.read())).value)
      expect(lines(first)).toEqual([
        expect.objectContaining({ choices: [expect.objectContaining({ delta: { role: "assistant", content: "" } })] })
      ])
      let rest = ""
      const more = (async () => {
        for (;;) {
          const { done, value } = await reader.read()
          if (done) return rest
          rest += decoder.decode(value, { stream: true })
        }
      })()
      yield* real(150)
      expect(rest).toBe("")
      yield* TestClock.adjust("3 seconds")
      yield* Effect.promise(() => more)
      expect(chatText(first + rest)).toBe(text)
      expect(rest.trimEnd().endsWith("data: [DONE]")).toBe(true)
    }))

  it.effect("flap-<ms>: 503 while the mock's clock is under ms since its start, then answers; reset starts it over", () =>
    Effect.gen(function*() {
      const mock = yield* MockProvider.make()
      const status = (stream: boolean) =>
        request(mock.url, calls.chat("gpt-fault-flap-1000", stream)).pipe(Effect.map((reply) => reply.status))
      expect([yield* status(false), yield* status(true)]).toEqual([503, 503])
      yield* TestClock.adjust("999 millis")
      expect(yield* status(true)).toBe(503)
      yield* TestClock.adjust("1 millis")
      expect([yield* status(false), yield* status(true)]).toEqual([200, 200])
      const log = (yield* mock.requests).log
      expect(log.map((entry) => [entry.at, entry.fault])).toEqual([
        [0, "overloaded"],
        [0, "overloaded"],
        [999, "overloaded"],
        [1000, "answer"],
        [1000, "answer"]
      ])
      const anthropic = yield* request(mock.url, calls.anthropic("c-fault-flap-1000", false))
      expect(anthropic.status).toBe(200)
      yield* mock.reset
      expect(yield* status(false)).toBe(503)
      expect((yield* request(mock.url, calls.anthropic("c-fault-flap-1000", false))).status).toBe(529)
    }))

  it.effect("a script says the same: a flap's window and a slow reply's delay, in ms on the mock's clock", () =>
    Effect.gen(function*() {
      const mock = yield* MockProvider.make()
      yield* mock.script([{ model: "a", fault: "flap", window: 500 }, { model: "b", fault: "slow", delay: 200 }])
      expect((yield* request(mock.url, calls.chat("a", false))).status).toBe(503)
      const slow = inFlight(mock.url, "b", false)
      yield* real(150)
      yield* TestClock.adjust("199 millis")
      yield* real(100)
      expect(slow.state.headers).toBe(false)
      yield* TestClock.adjust("301 millis")
      expect((yield* Effect.promise(() => slow.reply)).status).toBe(200)
      expect((yield* request(mock.url, calls.chat("a", false))).status).toBe(200)
    }))

  it.effect("at is on the mock's clock, monotonic on Node's; both count from the mock's start", () =>
    Effect.gen(function*() {
      yield* TestClock.adjust("1 hour")
      const mock = yield* MockProvider.make()
      yield* request(mock.url, calls.chat("a", false))
      yield* real(20)
      yield* TestClock.adjust("250 millis")
      yield* request(mock.url, calls.anthropic("b", true))
      const [first, second] = (yield* mock.requests).log
      expect([first!.at, second!.at]).toEqual([0, 250])
      expect(first!.monotonic).toBeGreaterThanOrEqual(0)
      expect(second!.monotonic).toBeGreaterThan(first!.monotonic)
      expect([first!.route, first!.model, first!.key, first!.ended]).toEqual(["chat", "a", "test-key", "complete"])
    }))

  it.live("how each reply ended: silent (hang), stalled, reset, error, abandoned (the client left first)", () =>
    Effect.gen(function*() {
      const mock = yield* MockProvider.make({ text })
      const gone = (model: string, stream: boolean) =>
        Effect.promise(() =>
          send(mock.url, calls.chat(model, stream), AbortSignal.timeout(150)).then((r) => r.text()).catch(() => "")
        )
      yield* gone("gpt-fault-hang", false)
      yield* gone("gpt-fault-stall", true)
      yield* gone("gpt-fault-reset", false)
      yield* request(mock.url, calls.chat("gpt-fault-server-error", false))
      yield* gone("gpt-fault-slow-60000", true)
      yield* gone("gpt-fault-slow-token-60000", true)
      yield* Effect.sleep("50 millis")
      expect((yield* mock.requests).log.map((entry) => entry.ended)).toEqual([
        "silent",
        "stalled",
        "reset",
        "error",
        "abandoned",
        "abandoned"
      ])
    }))

  it("plain Node: the mock's clock is performance.now(), at counts from its start", async () => {
    const mock = await MockProvider.start()
    await new Promise((resolve) => setTimeout(resolve, 30))
    await send(mock.url, calls.chat("m", false))
    const [entry] = mock.requests().log
    expect(entry!.at).toBeGreaterThanOrEqual(25)
    expect(entry!.at).toBeLessThan(60_000)
    await mock.stop()
  })
})
