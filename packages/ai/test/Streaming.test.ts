import { describe, expect, it } from "@effect/vitest"
import { Notice } from "@fallback/core"
import { Duration, Effect, Fiber, Layer, Option, Result, Schema, Stream, Tracer } from "effect"
import { AiError, LanguageModel, type Prompt, type Response } from "effect/ai"
import { TestClock } from "effect/testing"

import { OpenAiCompatible } from "@fallback/backends"
import type { MockProvider } from "@fallback/testkit"
import { AiFailure, AiPlace, FallbackAi } from "../src/index.js"

import { mocked, withKeys, world } from "./world.js"

/** Waits, on the real clock, until the mock has been asked `n` times. */
const askedOf = (mock: MockProvider.Service, n: number) =>
  Effect.promise(async () => {
    for (let i = 0; i < 2000; i++) {
      if ((await Effect.runPromise(mock.requests)).total >= n) return
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
  })

const heard: Array<Notice.Notice> = []
const notices = Layer.succeed(Notice.Notices, {
  publish: (notice) => Effect.sync(() => void heard.push(notice)),
  watch: Effect.succeed(Stream.empty)
})

const usage = { inputTokens: { total: 3 }, outputTokens: { total: 5 } }

/** What a scripted place streams, given the prompt it was asked (the last message may be a prefill). */
interface Script {
  readonly parts: (prompt: Prompt.Prompt) => ReadonlyArray<Response.StreamPartEncoded>
  /** Ends the stream with this error after the parts (a cut mid-answer). */
  readonly cut?: AiError.AiError | undefined
  /** Sends nothing more after the parts (a stall mid-answer). */
  readonly stalls?: boolean | undefined
  /** Refuses a prompt that ends with an assistant message. */
  readonly refusesPrefill?: boolean | undefined
  /** What `generateText` answers. */
  readonly whole?: ReadonlyArray<Response.PartEncoded> | undefined
  readonly continues?: boolean | undefined
}

const cutError = AiError.make({
  module: "Scripted",
  method: "streamText",
  reason: new AiError.UnknownError({ description: "the connection dropped mid-answer" })
})

const prefillOf = (prompt: Prompt.Prompt): string | undefined => {
  const last = prompt.content.at(-1)
  return last?.role === "assistant"
    ? last.content.flatMap((part) => part.type === "text" ? [part.text] : []).join("")
    : undefined
}

/** A scripted `effect/ai` place under the CLI `cli`; each prompt it is asked is logged. */
const scripted = (cli: string, script: Script, asked: Array<string>) =>
  AiPlace.make({
    cli,
    continues: script.continues,
    layer: () =>
      Layer.effect(
        LanguageModel.LanguageModel,
        LanguageModel.make({
          generateText: () =>
            Effect.sync(() => {
              asked.push(`${cli} whole`)
              const answer: Array<Response.PartEncoded> = [
                { type: "text", text: `answered by ${cli}` },
                { type: "finish", reason: "stop", usage }
              ]
              return [...(script.whole ?? answer)]
            }),
          streamText: (options) => {
            const prefill = prefillOf(options.prompt)
            asked.push(prefill === undefined ? `${cli} stream` : `${cli} stream after ${JSON.stringify(prefill)}`)
            if (prefill !== undefined && script.refusesPrefill === true) {
              return Stream.fail(AiError.make({
                module: "Scripted",
                method: "streamText",
                reason: new AiError.InvalidRequestError({ description: "no assistant prefill here" })
              }))
            }
            const parts = Stream.fromIterable(script.parts(options.prompt))
            if (script.stalls === true) return Stream.concat(parts, Stream.never)
            return script.cut === undefined ? parts : Stream.concat(parts, Stream.fail(script.cut))
          }
        })
      )
  })

const opening = (model: string): Array<Response.StreamPartEncoded> => [
  { type: "response-metadata", id: `resp-${model}`, modelId: model, timestamp: new Date(0).toISOString() },
  { type: "text-start", id: model },
  { type: "text-delta", id: model, delta: "" }
]

const answering = (model: string, text: string): Array<Response.StreamPartEncoded> => [
  ...opening(model),
  { type: "text-delta", id: model, delta: text },
  { type: "text-end", id: model },
  { type: "finish", reason: "stop", usage }
]

const chain = (a: Script, b: Script, asked: Array<string>, options: FallbackAi.Config["options"] = {}) =>
  FallbackAi.chain(["a/model-a", "b/model-b"], [scripted("a", a, asked), scripted("b", b, asked)], {
    options: { firstByte: Option.none(), ...options }
  }).pipe(Layer.orDie, Layer.provide(notices))

const collected = <A, E, R>(stream: Stream.Stream<A, E, R>) => {
  const parts: Array<A> = []
  return Stream.runForEach(stream, (part) => Effect.sync(() => void parts.push(part))).pipe(
    Effect.result,
    Effect.map((result) => ({ parts, result }))
  )
}

const textOf = (parts: ReadonlyArray<Response.AnyPart>) =>
  parts.flatMap((part) => part.type === "text-delta" ? [part.delta] : []).join("")

const finishOf = (
  parts: ReadonlyArray<Response.AnyPart>
) => (parts.find((part) => part.type === "finish") as Response.FinishPart | undefined)

/** The note on the reason of the error a call failed with. */
const noteOf = (error: unknown) =>
  (AiError.isAiError(error) ? (error.reason as any).metadata?.fallback : undefined) as AiFailure.Failed | undefined

/** A tracer that keeps the spans it starts. */
const keeping = (spans: Array<Tracer.Span>) =>
  Tracer.make({
    span(options) {
      const span = Tracer.nativeTracer.span(options)
      spans.push(span)
      return span
    }
  })

const cutAfter = (text: string): Script => ({
  parts: () => [...opening("model-a"), { type: "text-delta", id: "model-a", delta: text }],
  cut: cutError
})

describe("FallbackAi.streamText: a cut after content reached the caller", () => {
  it.effect("is continued at a place that continues, from what was delivered: nothing replayed", () =>
    Effect.gen(function*() {
      const asked: Array<string> = []
      const { parts, result } = yield* collected(LanguageModel.streamText({ prompt: "tell me" })).pipe(
        Effect.provide(chain(cutAfter("The answer is"), {
          continues: true,
          parts: (prompt) => answering("model-b", prefillOf(prompt) === "The answer is" ? " forty-two." : "wrong")
        }, asked))
      )
      expect(Result.isSuccess(result)).toBe(true)
      expect(textOf(parts)).toBe("The answer is forty-two.")
      expect(asked).toEqual(["a stream", "b stream after \"The answer is\""])
      // the cut block is closed before the continuation's own begins
      const types = parts.map((part) =>
        part.type === "text-start" || part.type === "text-end" ? `${part.type} ${part.id}` : part.type
      )
      expect(types.indexOf("text-end model-a")).toBeLessThan(types.indexOf("text-start model-b"))
      const finish = finishOf(parts)!
      expect(finish.metadata.fallback).toEqual({
        place: "b/model-b",
        from: "a/model-a",
        moved: true,
        model: "model-b",
        continued: { from: "a/model-a", delivered: "The answer is".length }
      })
      expect(finish.usage.outputTokens.total).toBe(5)
    }))

  it.effect("at a next place that does not continue fails with an AiError noting what was delivered and the cut", () =>
    Effect.gen(function*() {
      const asked: Array<string> = []
      const { parts, result } = yield* collected(LanguageModel.streamText({ prompt: "tell me" })).pipe(
        Effect.provide(chain(cutAfter("The answer is"), { parts: () => answering("model-b", "whole") }, asked))
      )
      expect(textOf(parts)).toBe("The answer is")
      expect(Result.isFailure(result)).toBe(true)
      if (Result.isFailure(result)) {
        expect(AiError.isAiError(result.failure)).toBe(true)
        const note = noteOf(result.failure)!
        expect(note.delivered).toBe("The answer is")
        expect(note.kind).toBe("Unknown")
        expect(note.place).toBe("a/model-a")
        expect(note.continuation).toBeUndefined()
        expect(AiFailure.kindOf(result.failure as AiError.AiError)).toBe("Unknown")
      }
      expect(asked).toEqual(["a stream"])
    }))

  it.effect("a refused continuation never masks the failure that cut the answer: it is noted beside it", () =>
    Effect.gen(function*() {
      const asked: Array<string> = []
      const { result } = yield* collected(LanguageModel.streamText({ prompt: "tell me" })).pipe(
        Effect.provide(chain(cutAfter("The answer is"), {
          continues: true,
          refusesPrefill: true,
          parts: () => answering("model-b", "whole")
        }, asked))
      )
      expect(Result.isFailure(result)).toBe(true)
      if (Result.isFailure(result)) {
        const note = noteOf(result.failure)!
        expect(note.kind).toBe("Unknown")
        expect(note.place).toBe("a/model-a")
        expect(note.delivered).toBe("The answer is")
        expect(note.continuation).toMatchObject({ kind: "ArgumentsRefused", place: "b/model-b" })
        expect(note.continuation?.failure).toMatchObject({ argument: "prefill" })
      }
      expect(asked).toEqual(["a stream", "b stream after \"The answer is\""])
    }))

  it.effect("inside a tool call is never continued elsewhere: it fails with what was delivered", () =>
    Effect.gen(function*() {
      const asked: Array<string> = []
      const { result } = yield* collected(LanguageModel.streamText({ prompt: "tell me" })).pipe(
        Effect.provide(chain(
          {
            parts: () => [
              ...opening("model-a"),
              { type: "text-delta", id: "model-a", delta: "Let me look." },
              { type: "tool-params-start", id: "call-1", name: "Weather" },
              { type: "tool-params-delta", id: "call-1", delta: "{\"city\":" }
            ],
            cut: cutError
          },
          { continues: true, parts: () => answering("model-b", "whole") },
          asked
        ))
      )
      expect(Result.isFailure(result)).toBe(true)
      if (Result.isFailure(result)) expect(noteOf(result.failure)?.delivered).toBe("Let me look.")
      expect(asked).toEqual(["a stream"])
    }))

  it.effect("a stream that answers whole says the place and model that answered, and its usage", () =>
    Effect.gen(function*() {
      const asked: Array<string> = []
      const { parts } = yield* collected(LanguageModel.streamText({ prompt: "tell me" })).pipe(
        Effect.provide(chain({ parts: () => answering("model-a-2026", "all of it") }, {
          parts: () => []
        }, asked))
      )
      const finish = finishOf(parts)!
      expect(finish.metadata.fallback).toEqual({
        place: "a/model-a",
        from: "a/model-a",
        moved: false,
        model: "model-a-2026"
      })
      expect(finish.usage.inputTokens.total).toBe(3)
    }))
})

describe("FallbackAi.streamText: a stall after content reached the caller", () => {
  it.effect("ends the attempt at the stall limit and the answer goes on at a place that continues", () =>
    Effect.gen(function*() {
      const asked: Array<string> = []
      const call = yield* collected(LanguageModel.streamText({ prompt: "tell me" })).pipe(
        Effect.provide(chain(
          { parts: () => [...opening("model-a"), { type: "text-delta", id: "model-a", delta: "Half" }], stalls: true },
          { continues: true, parts: () => answering("model-b", " and the rest.") },
          asked,
          { idle: Option.some(Duration.seconds(10)) }
        )),
        Effect.forkChild
      )
      yield* TestClock.adjust("9 seconds")
      expect(asked).toEqual(["a stream"])
      yield* TestClock.adjust("2 seconds")
      const { parts, result } = yield* Fiber.join(call)
      expect(Result.isSuccess(result)).toBe(true)
      expect(textOf(parts)).toBe("Half and the rest.")
      expect(asked).toEqual(["a stream", "b stream after \"Half\""])
      expect(finishOf(parts)!.metadata.fallback?.continued).toEqual({ from: "a/model-a", delivered: 4 })
    }))

  it.effect("the streamed call's span carries the place and model that answered and the usage", () =>
    Effect.gen(function*() {
      const spans: Array<Tracer.Span> = []
      const asked: Array<string> = []
      yield* collected(LanguageModel.streamText({ prompt: "tell me" })).pipe(
        Effect.provide(chain(cutAfter("The answer is"), {
          continues: true,
          parts: () => answering("model-b", " forty-two.")
        }, asked)),
        Effect.withTracer(keeping(spans))
      )
      const span = spans.find((span) => span.name === "FallbackAi.streamText")!
      expect(Object.fromEntries(span.attributes)).toMatchObject({
        "fallback.place": "b/model-b",
        "fallback.from": "a/model-a",
        "fallback.continued_from": "a/model-a",
        "gen_ai.response.model": "model-b",
        "gen_ai.usage.output_tokens": 5
      })
    }))
})

describe("FallbackAi.generateText: a whole reply", () => {
  it.effect("an answer that broke off in an error is failed over, its part discarded, never passed off as whole", () =>
    Effect.gen(function*() {
      const asked: Array<string> = []
      const response = yield* LanguageModel.generateText({ prompt: "tell me" }).pipe(
        Effect.provide(chain(
          {
            parts: () => [],
            whole: [{ type: "text", text: "The answer is" }, { type: "finish", reason: "error", usage }]
          },
          { parts: () => [] },
          asked
        ))
      )
      expect(response.text).toBe("answered by b")
      expect(asked[0]).toBe("a whole")
      expect(asked.filter((call) => call === "b whole")).toHaveLength(1)
      expect(response.content.find((part) => part.type === "finish")!.metadata.fallback).toMatchObject({
        place: "b/model-b",
        moved: true
      })
    }))

  it.effect("generateObject too: an answer that broke off is failed over and the next place's object decoded", () =>
    Effect.gen(function*() {
      const asked: Array<string> = []
      const response = yield* LanguageModel.generateObject({
        prompt: "the answer",
        schema: Schema.Struct({ answer: Schema.Number })
      }).pipe(
        Effect.provide(chain({
          parts: () => [],
          // broken off where it still decodes: 4 of 42
          whole: [{ type: "text", text: "{\"answer\":4}" }, { type: "finish", reason: "error", usage }]
        }, {
          parts: () => [],
          whole: [{ type: "text", text: "{\"answer\":42}" }, { type: "finish", reason: "stop", usage }]
        }, asked))
      )
      expect(response.value).toEqual({ answer: 42 })
      expect(asked.at(-1)).toBe("b whole")
    }))

  it.effect("the call's span carries the place and model that answered and the usage", () =>
    Effect.gen(function*() {
      const spans: Array<Tracer.Span> = []
      const asked: Array<string> = []
      yield* LanguageModel.generateText({ prompt: "tell me" }).pipe(
        Effect.provide(chain({
          parts: () => [],
          whole: [{ type: "text", text: "cut" }, { type: "finish", reason: "error", usage }]
        }, {
          parts: () => [],
          whole: [
            { type: "response-metadata", id: "r", modelId: "model-b-2026", timestamp: new Date(0).toISOString() },
            { type: "text", text: "whole" },
            { type: "finish", reason: "stop", usage }
          ]
        }, asked)),
        Effect.withTracer(keeping(spans))
      )
      const span = spans.find((span) => span.name === "FallbackAi.generateText")!
      expect(span).toBeDefined()
      expect(Object.fromEntries(span.attributes)).toMatchObject({
        "fallback.place": "b/model-b",
        "fallback.from": "a/model-a",
        "fallback.moved": true,
        "gen_ai.response.model": "model-b-2026",
        "gen_ai.usage.input_tokens": 3,
        "gen_ai.usage.output_tokens": 5
      })
    }))
})

describe("FallbackAi over the mock provider (real HTTP on 127.0.0.1)", () => {
  it.live("streamText cut mid-answer at an OpenAI-compatible place continues at the next, which the mock sees prefilled", () =>
    Effect.gen(function*() {
      const text = "a long answer that the first place cuts short"
      const mock = yield* mocked([], { text })
      const local = AiPlace.fromProvider("local", {
        kind: "openai-compatible",
        baseUrl: `${mock.url}/v1`,
        continues: true
      })
      const places = ["local/a-fault-cut", "local/b-answer"]
      const { parts, result } = yield* collected(LanguageModel.streamText({ prompt: "hello" })).pipe(
        Effect.provide(
          FallbackAi.layer(places[0]!, { options: { firstByte: Option.none() } }).pipe(
            Layer.provide(world(mock.url, places, [local]))
          )
        ),
        withKeys
      )
      expect(Result.isSuccess(result)).toBe(true)
      expect(textOf(parts)).toBe(text)
      const log = (yield* mock.requests).log
      expect(log.map((r) => r.model)).toEqual(["a-fault-cut", "b-answer"])
      expect(log[1]!.prefill).toBeDefined()
      expect(text.startsWith(log[1]!.prefill!)).toBe(true)
      const note = finishOf(parts)!.metadata.fallback!
      expect(note).toMatchObject({ place: "local/b-answer", from: "local/a-fault-cut", moved: true, model: "b-answer" })
      expect(note.continued).toEqual({ from: "local/a-fault-cut", delivered: log[1]!.prefill!.length })
    }))

  it.live("streamText cut at Anthropic with no place that continues fails noting what was delivered", () =>
    Effect.gen(function*() {
      const mock = yield* mocked([{ fault: "cut", route: "anthropic" }], { text: "a long answer that is cut" })
      const places = ["anthropic/claude-x", "openai/gpt-x"]
      const { parts, result } = yield* collected(LanguageModel.streamText({ prompt: "hello" })).pipe(
        Effect.provide(
          FallbackAi.layer(places[0]!, { options: { firstByte: Option.none() } }).pipe(
            Layer.provide(world(mock.url, places))
          )
        ),
        withKeys
      )
      expect(Result.isFailure(result)).toBe(true)
      if (Result.isFailure(result)) {
        const note = noteOf(result.failure)!
        expect(note.delivered).toBe(textOf(parts))
        expect(note.delivered!.length).toBeGreaterThan(0)
        expect(note.kind).toBe("ConnectionLost")
        expect(AiFailure.kindOf(result.failure as AiError.AiError)).toBe("ConnectionLost")
      }
      expect((yield* mock.requests).log.map((r) => `${r.route} ${r.fault}`)).toEqual(["anthropic cut"])
    }))

  it.live("generateText at a place whose answer is cut or errs mid-answer is answered whole by the next", () =>
    Effect.gen(function*() {
      for (const fault of ["cut", "stream-error"] as const) {
        const mock = yield* mocked([], { text: "the whole answer" })
        const local = AiPlace.fromProvider("local", { kind: "openai-compatible", baseUrl: `${mock.url}/v1` })
        const places = [`local/a-fault-${fault}`, "local/b-answer"]
        const response = yield* LanguageModel.generateText({ prompt: "hello" }).pipe(
          Effect.provide(
            FallbackAi.layer(places[0]!, { options: { firstByte: Option.none() } }).pipe(
              Layer.provide(world(mock.url, places, [local]))
            )
          ),
          withKeys
        )
        expect(response.text).toBe("the whole answer")
        expect((yield* mock.requests).log.map((r) => r.model)).toEqual([`a-fault-${fault}`, "b-answer"])
        const finish = response.content.find((part) => part.type === "finish")!
        expect(finish.metadata.fallback).toMatchObject({ place: "local/b-answer", model: "b-answer" })
        expect(finish.usage.outputTokens.total).toBeGreaterThan(0)
      }
    }))

  it.effect("generateText at a config file's provider that stalls mid-answer is cut at the HTTP first-byte limit and moves", () =>
    Effect.gen(function*() {
      const mock = yield* mocked([], { text: "the whole answer" })
      const local = AiPlace.fromProvider("local", { kind: "openai-compatible", baseUrl: `${mock.url}/v1` })
      const places = ["local/a-fault-stall", "local/b-answer"]
      const call = yield* LanguageModel.generateText({ prompt: "hello" }).pipe(
        Effect.provide(
          FallbackAi.layer(places[0]!, {
            options: {
              firstByte: Option.none(),
              limits: { http: { firstByte: Option.some(Duration.seconds(5)) }, cli: {} }
            }
          }).pipe(Layer.provide(world(mock.url, places, [local])))
        ),
        withKeys,
        Effect.forkChild
      )
      yield* askedOf(mock, 1)
      yield* TestClock.adjust("5 seconds")
      const response = yield* Fiber.join(call)
      expect(response.text).toBe("the whole answer")
      expect((yield* mock.requests).log.map((r) => r.model)).toEqual(["a-fault-stall", "b-answer"])
    }))

  it.live("streamText cut at an HTTP provider of text continues at the next, one text block each, nothing replayed", () =>
    Effect.gen(function*() {
      const text = "a long answer that the first place cuts short"
      const mock = yield* mocked([], { text })
      const local = OpenAiCompatible.make({ name: "local", baseUrl: `${mock.url}/v1`, continues: true })
      const places = ["local/a-fault-cut", "local/b-answer"]
      const { parts, result } = yield* collected(LanguageModel.streamText({ prompt: "hello" })).pipe(
        Effect.provide(
          FallbackAi.layer(places[0]!, { options: { firstByte: Option.none() } }).pipe(
            Layer.provide(world(mock.url, places, [local]))
          )
        ),
        withKeys
      )
      expect(Result.isSuccess(result)).toBe(true)
      expect(textOf(parts)).toBe(text)
      const blocks = parts.flatMap((part) => part.type === "text-start" || part.type === "text-end" ? [part.type] : [])
      expect(blocks).toEqual(["text-start", "text-end", "text-start", "text-end"])
      const log = (yield* mock.requests).log
      expect(log.map((r) => r.model)).toEqual(["a-fault-cut", "b-answer"])
      expect(finishOf(parts)!.metadata.fallback).toMatchObject({
        place: "local/b-answer",
        continued: { from: "local/a-fault-cut", delivered: log[1]!.prefill!.length }
      })
    }))
})
