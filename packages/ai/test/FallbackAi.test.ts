import { describe, expect, it } from "@effect/vitest"
import { OpenAiCompatible } from "@fallback/backends"
import { Answer, Backend, Notice } from "@fallback/core"
import { MockProvider, Scripted } from "@fallback/testkit"
import { Effect, Fiber, Layer, Option, Result, Schema, Stream } from "effect"
import { AiError, Chat, LanguageModel, Prompt, type Response, Tool, Toolkit } from "effect/ai"
import { TestClock } from "effect/testing"

import { AiFailure, AiPlace, FallbackAi } from "../src/index.js"
import { builds, heard, mocked, secrets, withKeys, world } from "./world.js"

const noKey = (text: string) => {
  for (const secret of Object.values(secrets)) expect(text).not.toContain(secret)
}

/** Waits, on the real clock, until the mock has been asked `n` times. */
const asked = (mock: MockProvider.Service, n: number) =>
  Effect.promise(async () => {
    for (let i = 0; i < 2000; i++) {
      if ((await Effect.runPromise(mock.requests)).total >= n) return
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
  })

/** Where the finish part says the call was answered (typed: `Response.FinishPartMetadata.fallback`). */
const fallbackOf = (part: { readonly type: string }) =>
  part.type === "finish" ? (part as Response.FinishPart).metadata.fallback : undefined

/**
 * The primary answers, except that a rate limit or a spent quota moves on at once (their waits
 * are the engine's, tested there).
 */
const movesAtOnce = Answer.override(Answer.primary, {
  RateLimited: Answer.primary.Unknown,
  QuotaExhausted: Answer.primary.Unknown
})

const chained = (url: string, chain: ReadonlyArray<string>, options: FallbackAi.Config["options"] = {}) =>
  FallbackAi.layer(chain[0]!, { options: { firstByte: Option.none(), ...options } }).pipe(
    Layer.provide(world(url, chain))
  )

describe("FallbackAi: a chain of effect/ai places as a LanguageModel, over HTTP", () => {
  it.effect("generateText at a rate-limited Anthropic place waits as asked, then moves to OpenAI and answers", () =>
    Effect.gen(function*() {
      heard.length = 0
      const mock = yield* mocked([{ fault: "rate-limit", route: "anthropic", retryAfter: 30 }], {
        text: "answered by openai"
      })
      const call = yield* LanguageModel.generateText({
        prompt: [
          { role: "system", content: "You are terse." },
          { role: "user", content: "first" },
          { role: "assistant", content: "noted" },
          { role: "user", content: "second" }
        ]
      }).pipe(
        Effect.provide(chained(mock.url, ["anthropic/claude-x", "openai/gpt-x"])),
        withKeys,
        Effect.forkChild
      )
      yield* asked(mock, 1)
      yield* TestClock.adjust("30 seconds")
      const response = yield* Fiber.join(call)
      expect(response.text).toBe("answered by openai")
      const finish = response.content.find((part) => part.type === "finish")!
      expect(fallbackOf(finish)).toEqual({
        place: "openai/gpt-x",
        from: "anthropic/claude-x",
        moved: true,
        model: "gpt-x"
      })
      const counts = yield* mock.requests
      expect(counts.log.map((r) => `${r.route} ${r.model} ${r.fault}`)).toEqual([
        "anthropic claude-x rate-limit",
        "anthropic claude-x rate-limit",
        "responses gpt-x answer"
      ])
      expect(heard.map((notice) => notice._tag)).toEqual(["Retrying", "Moving"])
      const retrying = heard[0] as Extract<Notice.Notice, { _tag: "Retrying" }>
      expect(retrying.failure._tag).toBe("RateLimited")
      expect(Notice.format(heard[1]!)).toMatch(/carrying on at openai\/gpt-x/)
      noKey(heard.map(Notice.format).join("\n"))
    }))

  it.live("the whole prompt reaches each place as messages: system, turns, tool calls and results", () =>
    Effect.gen(function*() {
      const mock = yield* mocked([{ fault: "overloaded", route: "anthropic" }], { bodies: true })
      yield* LanguageModel.generateText({
        prompt: [
          { role: "system", content: "You are terse." },
          { role: "user", content: "What is the weather?" },
          {
            role: "assistant",
            content: [{
              type: "tool-call",
              id: "call_1",
              name: "Weather",
              params: { city: "Oslo" },
              providerExecuted: false
            }]
          },
          {
            role: "tool",
            content: [{
              type: "tool-result",
              id: "call_1",
              name: "Weather",
              isFailure: false,
              result: { sky: "grey" },
              providerExecuted: false
            }]
          },
          { role: "user", content: "And tomorrow?" }
        ]
      }).pipe(
        Effect.provide(chained(mock.url, ["anthropic/claude-x", "openai/gpt-x"], {
          answers: movesAtOnce
        })),
        withKeys
      )
      const [first, second] = (yield* mock.requests).log.map((request) => request.body as any)
      expect(first.system).toEqual([{ type: "text", text: "You are terse." }])
      expect(first.messages.map((m: any) => m.role)).toEqual(["user", "assistant", "user"])
      expect(JSON.stringify(first.messages)).toContain("tool_result")
      expect(JSON.stringify(second.input)).toContain("function_call_output")
      expect(second.input[0]).toMatchObject({ role: "system", content: "You are terse." })
    }))
})

describe("FallbackAi: an effect/ai Chat over a chain", () => {
  it.live("a Chat keeps its history across calls while the chain moves: the stand-in gets the whole conversation", () =>
    Effect.gen(function*() {
      const mock = yield* mocked([{ fault: "model-not-found", route: "anthropic" }], { bodies: true, text: "noted" })
      const [first, second] = yield* Effect.gen(function*() {
        const chat = yield* Chat.fromPrompt([{ role: "system", content: "You are terse." }])
        const first = yield* chat.generateText({ prompt: "first" })
        const second = yield* chat.generateText({ prompt: "second" })
        return [first, second] as const
      }).pipe(Effect.provide(chained(mock.url, ["anthropic/claude-x", "openai/gpt-x"])), withKeys)
      expect([first.text, second.text]).toEqual(["noted", "noted"])
      expect(fallbackOf(first.content.find((part) => part.type === "finish")!)).toEqual({
        place: "openai/gpt-x",
        from: "anthropic/claude-x",
        moved: true,
        model: "gpt-x"
      })
      const log = (yield* mock.requests).log
      expect(log.map((r) => `${r.route} ${r.fault}`)).toEqual([
        "anthropic model-not-found",
        "responses answer",
        "responses answer"
      ])
      const last = JSON.stringify((log[2]!.body as any).input)
      for (const said of ["You are terse.", "first", "noted", "second"]) expect(last).toContain(said)
    }))
})

const collected = <A, E, R>(stream: Stream.Stream<A, E, R>) => {
  const parts: Array<A> = []
  return Stream.runForEach(stream, (part) => Effect.sync(() => void parts.push(part))).pipe(
    Effect.result,
    Effect.map((result) => ({ parts, result }))
  )
}

describe("FallbackAi.streamText commits at the first content part", () => {
  it.live("an error inside the stream before any content moves to the next place, with nothing replayed", () =>
    Effect.gen(function*() {
      const mock = yield* mocked([{ fault: "stream-error", route: "anthropic" }], { text: "streamed by openai" })
      const { parts, result } = yield* collected(LanguageModel.streamText({ prompt: "hello" })).pipe(
        Effect.provide(chained(mock.url, ["anthropic/claude-x", "openai/gpt-x"], { answers: movesAtOnce })),
        withKeys
      )
      expect(Result.isSuccess(result)).toBe(true)
      const text = parts.flatMap((part) => part.type === "text-delta" ? [part.delta] : []).join("")
      expect(text).toBe("streamed by openai")
      expect(parts.filter((part) => part.type === "response-metadata")).toHaveLength(1)
      const finish = parts.find((part) => part.type === "finish")!
      expect(fallbackOf(finish)).toEqual({
        place: "openai/gpt-x",
        from: "anthropic/claude-x",
        moved: true,
        model: "gpt-x"
      })
      expect((yield* mock.requests).log.map((r) => `${r.route} ${r.fault}`)).toEqual([
        "anthropic stream-error",
        "responses answer"
      ])
    }))

  it.live("a stream cut after its first content surfaces with what was delivered; the next place gets no request", () =>
    Effect.gen(function*() {
      const mock = yield* mocked([{ fault: "cut", route: "anthropic" }], { text: "a long answer that is cut" })
      const { parts, result } = yield* collected(LanguageModel.streamText({ prompt: "hello" })).pipe(
        Effect.provide(chained(mock.url, ["anthropic/claude-x", "openai/gpt-x"], { answers: movesAtOnce })),
        withKeys
      )
      expect(Result.isFailure(result)).toBe(true)
      if (Result.isFailure(result)) {
        expect(AiError.isAiError(result.failure)).toBe(true)
        noKey(JSON.stringify(result.failure) + String(result.failure))
      }
      const text = parts.flatMap((part) => part.type === "text-delta" ? [part.delta] : []).join("")
      expect(text.length).toBeGreaterThan(0)
      expect("a long answer that is cut".startsWith(text)).toBe(true)
      expect((yield* mock.requests).log.map((r) => `${r.route} ${r.fault}`)).toEqual(["anthropic cut"])
    }))
})

describe("FallbackAi: tools and structured output at a stand-in", () => {
  const Weather = Tool.make("Weather", {
    parameters: Schema.Struct({ city: Schema.String }),
    success: Schema.Struct({ sky: Schema.String })
  })
  const tools = Toolkit.make(Weather)
  const handlers = tools.toLayer({ Weather: ({ city }) => Effect.succeed({ sky: city === "Oslo" ? "grey" : "blue" }) })

  it.live("a tool call round trip answered at the stand-in: the call, its result, and the answer after it", () =>
    Effect.gen(function*() {
      const mock = yield* mocked([
        { fault: "model-not-found", route: "anthropic" },
        { fault: "answer", route: "responses", times: 1, tool: { input: { city: "Oslo" } } }
      ], { bodies: true, text: "grey in Oslo" })
      const result = yield* Effect.gen(function*() {
        const first = yield* LanguageModel.generateText({ prompt: "Weather in Oslo?", toolkit: tools })
        const call = first.toolCalls[0]!
        expect(call.name).toBe("Weather")
        expect(call.params).toEqual({ city: "Oslo" })
        expect(first.toolResults[0]!.result).toEqual({ sky: "grey" })
        const second = yield* LanguageModel.generateText({
          prompt: Prompt.concat(Prompt.make("Weather in Oslo?"), Prompt.fromResponseParts(first.content)),
          toolkit: tools
        })
        return second.text
      }).pipe(
        Effect.provide(Layer.merge(chained(mock.url, ["anthropic/claude-x", "openai/gpt-x"]), handlers)),
        withKeys
      )
      expect(result).toBe("grey in Oslo")
      const log = (yield* mock.requests).log
      expect(log.map((r) => `${r.route} ${r.fault}`)).toEqual([
        "anthropic model-not-found",
        "responses answer",
        "responses answer"
      ])
      const last = log[2]!.body as any
      expect(JSON.stringify(last.input)).toContain("function_call_output")
      expect(last.tools.map((tool: any) => tool.name)).toEqual(["Weather"])
    }))

  it.live("generateObject with a Schema answered at the stand-in (Anthropic asked through a forced tool)", () =>
    Effect.gen(function*() {
      const mock = yield* mocked([
        { fault: "unauthorized", route: "responses" },
        { fault: "answer", route: "anthropic", json: { city: "Oslo", degrees: 4 } }
      ])
      const response = yield* LanguageModel.generateObject({
        prompt: "Weather in Oslo?",
        schema: Schema.Struct({ city: Schema.String, degrees: Schema.Number })
      }).pipe(
        Effect.provide(chained(mock.url, ["openai/gpt-x", "anthropic/claude-x"])),
        withKeys
      )
      expect(response.value).toEqual({ city: "Oslo", degrees: 4 })
      expect((yield* mock.requests).log.map((r) => `${r.route} ${r.fault}`)).toEqual([
        "responses unauthorized",
        "anthropic answer"
      ])
    }))

  it.live("a config file's HTTP provider as an effect/ai place (AiPlace.fromProvider) gets the whole call, tools and all", () =>
    Effect.gen(function*() {
      const mock = yield* mocked([
        { fault: "model-not-found", route: "anthropic" },
        { fault: "answer", route: "chat", times: 1, tool: { input: { city: "Oslo" } } }
      ], { bodies: true, text: "grey" })
      const local = AiPlace.fromProvider("local", { kind: "openai-compatible", baseUrl: `${mock.url}/v1` })
      const chain = ["anthropic/claude-x", "local/qwen3:8b"]
      const response = yield* LanguageModel.generateText({
        prompt: [{ role: "system", content: "Be brief." }, { role: "user", content: "Weather in Oslo?" }],
        toolkit: tools
      }).pipe(
        Effect.provide(Layer.merge(
          FallbackAi.layer(chain[0]!, { options: { firstByte: Option.none() } }).pipe(
            Layer.provide(world(mock.url, chain, [local]))
          ),
          handlers
        )),
        withKeys
      )
      expect(response.toolCalls.map((call) => [call.name, call.params])).toEqual([["Weather", { city: "Oslo" }]])
      expect(response.toolResults[0]!.result).toEqual({ sky: "grey" })
      expect(fallbackOf(response.content.find((part) => part.type === "finish")!)).toEqual({
        place: "local/qwen3:8b",
        from: "anthropic/claude-x",
        moved: true,
        model: "qwen3:8b"
      })
      const sent = (yield* mock.requests).log[1]!.body as any
      expect(sent.messages).toEqual([{ role: "system", content: "Be brief." }, {
        role: "user",
        content: "Weather in Oslo?"
      }])
      expect(sent.tools.map((tool: any) => tool.function.name)).toEqual(["Weather"])
    }))

  it.live("a tool handler's own error passes through unchanged and moves nothing", () =>
    Effect.gen(function*() {
      const mock = yield* mocked([{ fault: "answer", route: "anthropic", tool: { input: { city: "Oslo" } } }])
      class Broken extends Schema.TaggedError<Broken>()("Broken", {}) {}
      const Failing = Tool.make("Failing", { parameters: Schema.Struct({ city: Schema.String }), failure: Broken })
      const failing = Toolkit.make(Failing)
      const error = yield* LanguageModel.generateText({ prompt: "Weather?", toolkit: failing }).pipe(
        Effect.provide(Layer.merge(
          chained(mock.url, ["anthropic/claude-x", "openai/gpt-x"]),
          failing.toLayer({ Failing: () => Effect.fail(new Broken()) })
        )),
        withKeys,
        Effect.flip
      )
      expect(error).toBeInstanceOf(Broken)
      expect((yield* mock.requests).log.map((r) => r.route)).toEqual(["anthropic"])
    }))
})

describe("FallbackAi: each place's layer is built lazily", () => {
  it.live("a chain of three model layers whose first answers builds one layer, once for many calls", () =>
    Effect.gen(function*() {
      builds.length = 0
      const mock = yield* MockProvider.make()
      const chain = ["anthropic/claude-x", "openai/gpt-x", "anthropic/claude-y"]
      yield* Effect.gen(function*() {
        for (let i = 0; i < 3; i++) yield* LanguageModel.generateText({ prompt: `call ${i}` })
      }).pipe(Effect.provide(chained(mock.url, chain)), withKeys)
      expect(builds).toEqual(["anthropic/claude-x"])
    }))

  it.live("a stand-in is built when a call first needs it, and held for the next calls", () =>
    Effect.gen(function*() {
      builds.length = 0
      const mock = yield* mocked([{ fault: "model-not-found", route: "anthropic" }])
      const chain = ["anthropic/claude-x", "openai/gpt-x", "anthropic/claude-y"]
      yield* Effect.gen(function*() {
        for (let i = 0; i < 3; i++) yield* LanguageModel.generateText({ prompt: `call ${i}` })
      }).pipe(Effect.provide(chained(mock.url, chain)), withKeys)
      expect(builds).toEqual(["anthropic/claude-x", "openai/gpt-x"])
    }))

  it.live("each account builds its own layer with its own key, read from the variable its env names", () =>
    Effect.gen(function*() {
      builds.length = 0
      const mock = yield* mocked([{ fault: "unauthorized", route: "anthropic", key: secrets.ANTHROPIC_API_KEY }])
      const response = yield* LanguageModel.generateText({ prompt: "hello" }).pipe(
        Effect.provide(
          FallbackAi.layer("anthropic@work/claude-x").pipe(Layer.provide(world(mock.url, [], [], true)))
        ),
        withKeys
      )
      expect(fallbackOf(response.content.find((part) => part.type === "finish")!)).toEqual({
        place: "anthropic@home/claude-x",
        from: "anthropic@work/claude-x",
        moved: true,
        model: "claude-x"
      })
      expect(builds).toEqual(["anthropic/claude-x", "anthropic/claude-x"])
      expect(
        (yield* mock.requests).log.map((r) => `${r.key === secrets.ANTHROPIC_KEY_HOME ? "home" : "work"} ${r.fault}`)
      )
        .toEqual(["work unauthorized", "home answer"])
      noKey(heard.map(Notice.format).join("\n"))
    }))
})

describe("FallbackAi: a chain that mixes kinds of places, and one that gives up", () => {
  const local = (url: string) => OpenAiCompatible.make({ name: "local", baseUrl: `${url}/v1` })

  it.live("an effect/ai place then an HTTP provider: the provider gets the conversation as text, generate and stream", () =>
    Effect.gen(function*() {
      const mock = yield* mocked([{ fault: "model-not-found", route: "anthropic" }], {
        bodies: true,
        text: "answered locally"
      })
      const chain = ["anthropic/claude-x", "local/qwen3:8b"]
      const prompt = [
        { role: "system" as const, content: "You are terse." },
        { role: "user" as const, content: "first" },
        { role: "assistant" as const, content: "noted" },
        { role: "user" as const, content: "second" }
      ]
      const [text, streamed] = yield* Effect.all([
        LanguageModel.generateText({ prompt }),
        Effect.map(collected(LanguageModel.streamText({ prompt })), ({ parts }) => parts)
      ]).pipe(
        Effect.provide(
          FallbackAi.layer(chain[0]!, { options: { firstByte: Option.none() } }).pipe(
            Layer.provide(world(mock.url, chain, [local(mock.url)]))
          )
        ),
        withKeys
      )
      expect(text.text).toBe("answered locally")
      expect(fallbackOf(text.content.find((part) => part.type === "finish")!)).toEqual({
        place: "local/qwen3:8b",
        from: "anthropic/claude-x",
        moved: true,
        model: "qwen3:8b"
      })
      expect(streamed.flatMap((part) => part.type === "text-delta" ? [part.delta] : []).join("")).toBe(
        "answered locally"
      )
      const log = (yield* mock.requests).log
      expect(log.map((r) => `${r.route} ${r.fault}`)).toEqual([
        "anthropic model-not-found",
        "chat answer",
        "chat answer"
      ])
      const sent = (log[1]!.body as any).messages
      expect(sent).toHaveLength(1)
      expect(sent[0].content).toBe("System: You are terse.\n\nUser: first\n\nAssistant: noted\n\nUser: second")
      expect((log[2]!.body as any).messages).toHaveLength(1)
    }))

  it.live("one chain of all three kinds: an effect/ai place, an HTTP provider, then an agent CLI that answers", () =>
    Effect.gen(function*() {
      heard.length = 0
      const mock = yield* mocked([
        { fault: "model-not-found", route: "anthropic" },
        { fault: "model-not-found", route: "chat" }
      ], { bodies: true })
      const scripted = Scripted.Scripted.layer({ places: { "claude/a": [Scripted.answer("the CLI answered")] } })
      const cli = Effect.map(Backend.Backends, (backends) => Option.getOrThrow(backends.get("claude")))
      const chain = ["anthropic/claude-x", "local/qwen3:8b", "claude/a"]
      const [response, seen] = yield* Effect.gen(function*() {
        const response = yield* LanguageModel.generateText({
          prompt: [{ role: "system", content: "Be brief." }, { role: "user", content: "hello" }]
        })
        return [response, (yield* Scripted.Scripted).seen("claude/a")] as const
      }).pipe(
        Effect.provide(
          FallbackAi.layer(chain[0]!, { options: { firstByte: Option.none() } }).pipe(
            Layer.provide(world(mock.url, chain, [local(mock.url), cli]))
          )
        ),
        Effect.provide(scripted),
        withKeys
      )
      expect(response.text).toBe("the CLI answered")
      expect(fallbackOf(response.content.find((part) => part.type === "finish")!)).toEqual({
        place: "claude/a",
        from: "anthropic/claude-x",
        moved: true,
        model: "a"
      })
      const log = (yield* mock.requests).log
      expect(log.map((r) => `${r.route} ${r.fault}`)).toEqual(["anthropic model-not-found", "chat model-not-found"])
      expect((log[0]!.body as any).system).toBeDefined()
      expect((log[1]!.body as any).messages[0].content).toBe("System: Be brief.\n\nUser: hello")
      expect(seen.prompts.map((prompt) => prompt.text)).toEqual(["System: Be brief.\n\nUser: hello"])
      expect(heard.filter((notice) => notice._tag === "Moving").map((notice) => Notice.format(notice))).toEqual([
        expect.stringMatching(/carrying on at local\/qwen3:8b/),
        expect.stringMatching(/carrying on at claude\/a/)
      ])
    }))

  it.live("generateObject at an HTTP provider: asked for JSON matching the schema, its answer decoded", () =>
    Effect.gen(function*() {
      const mock = yield* mocked([
        { fault: "quota", route: "anthropic" },
        { fault: "answer", route: "chat", json: { city: "Oslo", degrees: 4 } }
      ], { bodies: true })
      const chain = ["anthropic/claude-x", "local/qwen3:8b"]
      const response = yield* LanguageModel.generateObject({
        prompt: "Weather in Oslo?",
        schema: Schema.Struct({ city: Schema.String, degrees: Schema.Number })
      }).pipe(
        Effect.provide(
          FallbackAi.layer(chain[0]!, { options: { answers: movesAtOnce } }).pipe(
            Layer.provide(world(mock.url, chain, [local(mock.url)]))
          )
        ),
        withKeys
      )
      expect(response.value).toEqual({ city: "Oslo", degrees: 4 })
      const log = (yield* mock.requests).log
      const asked = (log[1]!.body as any).messages[0].content as string
      expect(asked).toMatch(/^Weather in Oslo\?\n\nAnswer with only a JSON object that matches this JSON Schema:\n\{/)
      expect(asked).toContain("\"degrees\"")
      expect(JSON.stringify(log[0]!.body)).not.toContain("JSON Schema:")
    }))

  it.live("a chain that gives up fails with the last place's own AiError, its keys masked", () =>
    Effect.gen(function*() {
      const mock = yield* mocked([{ fault: "unauthorized" }])
      const error = yield* LanguageModel.generateText({ prompt: "hello" }).pipe(
        Effect.provide(chained(mock.url, ["anthropic/claude-x", "openai/gpt-x"])),
        withKeys,
        Effect.flip
      )
      // The last place's own reason, masked, with the failure kind noted on it (typed).
      expect(error._tag).toBe("AiError")
      if (!AiError.isAiError(error)) return
      expect(error.reason._tag).toBe("AuthenticationError")
      if (error.reason._tag === "AuthenticationError") {
        expect(error.reason.http?.response?.status).toBe(401)
        expect(error.reason.metadata.fallback).toMatchObject({ kind: "AuthRefused", place: "openai/gpt-x" })
      }
      expect(AiFailure.kindOf(error)).toBe("AuthRefused")
      expect(error.message).toContain("/v1/responses")
      noKey(JSON.stringify(error) + error.message + String(error))
      expect((yield* mock.requests).log.map((r) => r.route)).toEqual(["anthropic", "responses"])
    }))
})
