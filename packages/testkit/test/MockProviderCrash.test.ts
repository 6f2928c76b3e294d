/** The faults of issue 25's crash test, by model name, as their bytes arrive on the wire. */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"

import * as MockProvider from "../src/MockProvider.js"
import { calls, request } from "./calls.js"
import { anthropicText, chatText, lines, prefilled, read } from "./crash.js"

const text = "the answer is 42, said slowly"

describe("issue 25's faults by model name", () => {
  it.live("rate-limit-<s>: 429 whose retry-after is the name's seconds; rate-limit-bare: 429 with no hint at all", () =>
    Effect.gen(function*() {
      const mock = yield* MockProvider.make()
      for (const stream of [false, true]) {
        const hinted = yield* request(mock.url, calls.chat("gpt-fault-rate-limit-2", stream))
        expect([hinted.status, hinted.headers.get("retry-after")]).toEqual([429, "2"])
        expect(hinted.headers.get("x-ratelimit-reset-requests")).toBe("2s")
        const bare = yield* request(mock.url, calls.chat("gpt-fault-rate-limit-bare", stream))
        expect(bare.status).toBe(429)
        expect(JSON.parse(bare.text).error.code).toBe("rate_limit_exceeded")
        expect(bare.text).not.toMatch(/try again/i)
        expect([...bare.headers.keys()].filter((name) => /retry|ratelimit/.test(name))).toEqual([])
        const anthropic = yield* request(mock.url, calls.anthropic("claude-fault-rate-limit-bare", stream))
        expect([anthropic.status, JSON.parse(anthropic.text).error.type]).toEqual([429, "rate_limit_error"])
        expect([...anthropic.headers.keys()].filter((name) => /retry|ratelimit/.test(name))).toEqual([])
      }
    }))

  it.live("server-error-once: 500 on the first request of that model, then answers; -x<n> fails n times", () =>
    Effect.gen(function*() {
      const mock = yield* MockProvider.make()
      const once = yield* Effect.forEach(
        [1, 2, 3],
        () => request(mock.url, calls.chat("gpt-fault-server-error-once", true))
      )
      expect(once.map((reply) => reply.status)).toEqual([500, 200, 200])
      const twice = yield* Effect.forEach(
        [1, 2, 3],
        () => request(mock.url, calls.anthropic("c-fault-overloaded-x2", false))
      )
      expect(twice.map((reply) => reply.status)).toEqual([529, 529, 200])
      expect((yield* mock.requests).log.map((entry) => entry.fault)).toEqual([
        "server-error",
        "answer",
        "answer",
        "overloaded",
        "overloaded",
        "answer"
      ])
      yield* mock.reset
      expect((yield* request(mock.url, calls.chat("gpt-fault-server-error-once", false))).status).toBe(500)
    }))

  it.live("overloaded: 503 on the OpenAI wire for good, whole and streamed", () =>
    Effect.gen(function*() {
      const mock = yield* MockProvider.make()
      const replies = yield* Effect.forEach([false, true, false, true], (stream) =>
        request(mock.url, calls.chat("gpt-fault-overloaded", stream)))
      expect(replies.map((reply) =>
        reply.status
      )).toEqual([503, 503, 503, 503])
      expect(JSON.parse(replies[0]!.text).error.type).toBe("server_error")
    }))

  it.live("cut-mid-json: content, then half an event's JSON, then the socket ends without [DONE]", () =>
    Effect.gen(function*() {
      const mock = yield* MockProvider.make({ text })
      const cut = yield* read(mock.url, calls.chat("gpt-fault-cut-mid-json", true))
      expect([cut.status, cut.clean]).toEqual([200, false])
      const seen = lines(cut.text)
      expect(typeof seen.at(-1)).toBe("string")
      expect(() => JSON.parse(seen.at(-1) as string)).toThrow()
      expect(chatText(cut.text)).toBe(text.slice(0, 10))
      expect(cut.text).not.toContain("[DONE]")
      const between = yield* read(mock.url, calls.chat("gpt-fault-cut", true))
      expect([between.clean, chatText(between.text)]).toEqual([false, text.slice(0, 10)])
      expect(lines(between.text).every((line) => typeof line === "object")).toBe(true)
      const anthropic = yield* read(mock.url, calls.anthropic("c-fault-cut-mid-json", true))
      expect([anthropic.clean, anthropicText(anthropic.text)]).toEqual([false, text.slice(0, 10)])
      expect(anthropic.text).not.toContain("message_stop")
      const whole = yield* read(mock.url, calls.chat("gpt-fault-cut-mid-json", false))
      expect(whole.clean).toBe(false)
      expect((yield* mock.requests).log.map((entry) => entry.ended)).toEqual(["cut", "cut", "cut", "cut"])
    }))

  it.live("malformed-event: one event of half a JSON among good ones; the rest completes", () =>
    Effect.gen(function*() {
      const mock = yield* MockProvider.make({ text })
      const chat = yield* read(mock.url, calls.chat("gpt-fault-malformed-event", true))
      const seen = lines(chat.text)
      expect(seen.filter((line) => typeof line === "string")).toHaveLength(2) // the broken one and [DONE]
      expect(seen.at(-1)).toBe("[DONE]")
      expect([chat.clean, chatText(chat.text)]).toEqual([true, text])
      const anthropic = yield* read(mock.url, calls.anthropic("c-fault-malformed-event", true))
      expect(lines(anthropic.text).filter((line) => typeof line === "string")).toHaveLength(1)
      expect(anthropicText(anthropic.text)).toBe(text)
      expect(anthropic.text.trimEnd().endsWith(`data: {"type":"message_stop"}`)).toBe(true)
      const whole = yield* request(mock.url, calls.chat("gpt-fault-malformed-event", false))
      expect(JSON.parse(whole.text).choices[0].message.content).toBe(text)
    }))

  it.live("no-sentinel: all the content and the usage, then the body ends without [DONE] / message_stop", () =>
    Effect.gen(function*() {
      const mock = yield* MockProvider.make({ text })
      const chat = yield* read(mock.url, calls.chat("gpt-fault-no-sentinel", true))
      expect([chat.clean, chatText(chat.text)]).toEqual([true, text])
      expect(chat.text).not.toContain("[DONE]")
      expect(lines(chat.text).at(-1)).toMatchObject({ choices: [], usage: { completion_tokens: 8 } })
      const anthropic = yield* read(mock.url, calls.anthropic("c-fault-no-sentinel", true))
      expect([anthropic.clean, anthropicText(anthropic.text)]).toEqual([true, text])
      expect(anthropic.text).not.toContain("message_stop")
      expect(lines(anthropic.text).at(-1)).toMatchObject({ type: "message_delta", usage: { output_tokens: 8 } })
      expect((yield* mock.requests).log.map((entry) => entry.ended)).toEqual(["complete", "complete"])
    }))

  it.live("content-filter: a 200 that refuses (content_filter / refusal); content-policy: a 400", () =>
    Effect.gen(function*() {
      const mock = yield* MockProvider.make()
      const streamed = yield* read(mock.url, calls.chat("gpt-fault-content-filter", true))
      const chunks = lines(streamed.text) as ReadonlyArray<any>
      expect(chunks.find((e) => e.choices?.[0]?.finish_reason)?.choices[0].finish_reason).toBe("content_filter")
      expect(chunks.at(-2)).toMatchObject({
        model: "gpt-fault-content-filter",
        usage: { prompt_tokens: 3, completion_tokens: 1 }
      })
      expect(chunks.at(-1)).toBe("[DONE]")
      const whole = JSON.parse((yield* request(mock.url, calls.chat("gpt-fault-content-filter", false))).text)
      expect(whole.choices[0]).toMatchObject({ finish_reason: "content_filter", message: { content: null } })
      const anthropic = yield* read(mock.url, calls.anthropic("c-fault-content-filter", true))
      expect(lines(anthropic.text).map((e: any) => e.delta?.stop_reason ?? e.type)).toEqual([
        "message_start",
        "ping",
        "refusal",
        "message_stop"
      ])
      const anthropicWhole = JSON.parse(
        (yield* request(mock.url, calls.anthropic("c-fault-content-filter", false))).text
      )
      expect(anthropicWhole).toMatchObject({ stop_reason: "refusal", content: [] })
      const policy = yield* request(mock.url, calls.chat("gpt-fault-content-policy", true))
      expect([policy.status, JSON.parse(policy.text).error.code]).toEqual([400, "content_policy_violation"])
      const anthropicPolicy = yield* request(mock.url, calls.anthropic("c-fault-content-policy", false))
      expect([anthropicPolicy.status, JSON.parse(anthropicPolicy.text).error.type]).toEqual([
        400,
        "invalid_request_error"
      ])
      expect(new Set((yield* mock.requests).log.map((entry) => entry.ended))).toEqual(new Set(["refused"]))
    }))

  it.live("no-prefill: a request ending with the assistant's words gets a 400; one ending with the user's is answered", () =>
    Effect.gen(function*() {
      const mock = yield* MockProvider.make({ text })
      for (const vendor of ["chat", "anthropic"] as const) {
        const refused = yield* request(mock.url, prefilled(vendor, "m-fault-no-prefill", true, "the ans"))
        expect(refused.status).toBe(400)
        expect(JSON.parse(refused.text).error.message).toMatch(/does not support assistant message prefill/)
        expect((yield* request(mock.url, calls[vendor]("m-fault-no-prefill", true))).status).toBe(200)
      }
      const log = (yield* mock.requests).log
      expect(log.map((entry) => [entry.prefill, entry.ended])).toEqual([
        ["the ans", "refused"],
        [undefined, "complete"],
        ["the ans", "refused"],
        [undefined, "complete"]
      ])
    }))

  it.live("a place that takes a prefill continues from it: only the rest of its answer comes", () =>
    Effect.gen(function*() {
      const mock = yield* MockProvider.make({ text })
      const chat = yield* read(mock.url, prefilled("chat", "m", true, "the answer is"))
      expect(chatText(chat.text)).toBe(" 42, said slowly")
      const anthropic = yield* request(mock.url, prefilled("anthropic", "m", false, "the answer is"))
      expect(JSON.parse(anthropic.text).content[0].text).toBe(" 42, said slowly")
      const other = yield* read(mock.url, prefilled("chat", "m", true, "something else"))
      expect(chatText(other.text)).toBe(text)
      expect((yield* mock.requests).log.map((entry) => entry.prefill)).toEqual([
        "the answer is",
        "the answer is",
        "something else"
      ])
    }))

  it.live("accounting: every streamed answer carries its usage and model in the wire's own way", () =>
    Effect.gen(function*() {
      const mock = yield* MockProvider.make({ text })
      const chat = lines((yield* read(mock.url, calls.chat("gpt-x", true))).text) as ReadonlyArray<any>
      expect(chat.at(-2)).toEqual(expect.objectContaining({
        model: "gpt-x",
        choices: [],
        usage: { prompt_tokens: 3, completion_tokens: 8, total_tokens: 11 }
      }))
      expect(chat.slice(0, -1).every((e) => e.model === "gpt-x")).toBe(true)
      const anthropic = lines((yield* read(mock.url, calls.anthropic("claude-x", true))).text) as ReadonlyArray<any>
      expect(anthropic[0]).toMatchObject({ message: { model: "claude-x", usage: { input_tokens: 3 } } })
      expect(anthropic.find((e) => e.type === "message_delta")).toMatchObject({ usage: { output_tokens: 8 } })
    }))
})
