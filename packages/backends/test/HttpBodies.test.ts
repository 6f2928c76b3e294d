/**
 * What an HTTP provider sends that is not what it should (issue 23): a body or a line too long to
 * hold is read only as far as its bound and let go; a 200 that carries an error, an HTML page,
 * malformed events or invalid JSON is judged by its words, which the failure keeps.
 */
import { NodeHttpClient } from "@effect/platform-node"
import type * as HttpClient from "@effect/platform/HttpClient"
import { describe, expect, it } from "@effect/vitest"
import type { Backend } from "@fallback/core"
import { type Failure, Place, Settings } from "@fallback/core"
import { MockProvider } from "@fallback/testkit"
import { Chunk, ConfigProvider, Effect, Layer, Option, Stream } from "effect"
import { AnthropicMessages, HttpProvider, OpenAiCompatible } from "../src/index.js"
import { parse, SseParser } from "../src/internal/httpSse.js"

const keys = ConfigProvider.fromMap(new Map([["TEST_KEY", "plain-test-secret-0123456789"]]))

const kinds = [
  {
    name: "Anthropic Messages",
    place: Place.Place.make({ cli: "anthropic", model: "model-a" }),
    backend: (url: string) => AnthropicMessages.provider({ baseUrl: url, key: { fromEnv: "TEST_KEY" } })
  },
  {
    name: "OpenAI-compatible",
    place: Place.Place.make({ cli: "local", model: "model-a" }),
    backend: (url: string) =>
      OpenAiCompatible.provider({ name: "local", baseUrl: `${url}/v1`, key: { fromEnv: "TEST_KEY" } })
  }
] as const

const transports: ReadonlyArray<{ readonly name: string; readonly layer: Layer.Layer<HttpClient.HttpClient> }> = [
  { name: "on the HttpClient", layer: NodeHttpClient.layerUndici },
  {
    name: "straight to undici",
    layer: Layer.merge(
      NodeHttpClient.layerUndiciWithoutDispatcher,
      Layer.effect(HttpProvider.Dispatcher, NodeHttpClient.Dispatcher)
    ).pipe(Layer.provide(NodeHttpClient.dispatcherLayer))
  }
]

const prompt: Backend.Prompt = { text: "hello", history: [] }

/** One turn (streamed) or reply (whole) at a place through a fresh session: its failure. */
const failure = (
  way: "turn" | "reply",
  layer: Layer.Layer<HttpClient.HttpClient>,
  provider: HttpProvider.Provider,
  place: Place.Place
): Effect.Effect<Failure.Failure> =>
  Effect.gen(function*() {
    const backend = yield* HttpProvider.make(provider)
    const session = yield* backend.open(place, Option.none(), Settings.plain, {})
    return way === "turn"
      ? Chunk.toArray(yield* Stream.runCollect(session.turn(prompt)))
      : yield* session.reply!(prompt, { by: Infinity, whole: Infinity, deadline: Infinity })
  }).pipe(Effect.scoped, Effect.withConfigProvider(keys), Effect.provide(layer), Effect.flip, Effect.orDie)

/** The bytes of body the client took before it let the request go, once the mock has seen it go. */
const taken = (mock: Effect.Effect.Success<ReturnType<typeof MockProvider.make>>) =>
  Effect.gen(function*() {
    for (let tries = 0; tries < 1000; tries++) {
      const sent = (yield* mock.requests).log[0]?.sent
      if (sent !== undefined) return sent
      yield* Effect.sleep("10 millis")
    }
    return Infinity
  })

const mib = 1024 * 1024

describe("a body or a line is bounded", () => {
  for (const transport of transports) {
    for (const kind of kinds) {
      for (const way of ["turn", "reply"] as const) {
        describe(`${transport.name}, ${kind.name}, by ${way}`, () => {
          it.scopedLive("a 500 with a 64 MiB body is read to its first 64 KiB, judged by them, and let go", () =>
            Effect.gen(function*() {
              const mock = yield* MockProvider.make()
              yield* mock.script([{ fault: "huge-error", size: 64 * mib }])
              const failed = yield* failure(way, transport.layer, kind.backend(mock.url), kind.place)
              expect(failed._tag).toBe("Unknown")
              expect(failed.said).toMatch(/^500 \(only the first 64 KiB of the body read\): /)
              expect(failed.said).toMatch(/Internal server error|The server had an error/)
              // 64 KiB read, plus what the sockets' buffers held when the client let go
              expect(yield* taken(mock)).toBeLessThan(16 * mib)
            }))
        })
      }
      for (const way of ["turn", "reply"] as const) {
        describe(`${transport.name}, ${kind.name}, by ${way}`, () => {
          it.scopedLive("an event stream's line that never ends fails past 1 MiB, saying so, and is let go", () =>
            Effect.gen(function*() {
              const mock = yield* MockProvider.make()
              yield* mock.script([{ fault: "endless-line", size: 64 * mib }])
              const failed = yield* failure(way, transport.layer, kind.backend(mock.url), kind.place)
              expect(failed._tag).toBe("Unknown")
              expect(failed.said).toContain("ran past 1 MiB without ending")
              expect(yield* taken(mock)).toBeLessThan(16 * mib)
            }))
        })
      }
    }
  }

  it("the parser keeps no line or event past 1 MiB: it stops there, the events before it returned", () => {
    const before = "data: {\"a\":1}\n\n"
    expect(parse(before + "data: " + "x".repeat(mib + 1))).toEqual([{ event: "", data: "{\"a\":1}" }])
    const parser = new SseParser()
    for (let i = 0; i < 2048; i++) parser.feed(`data: ${"y".repeat(1023)}\n`)
    expect(parser.overflowed).toBe(true)
    expect(parser.feed("\n\ndata: {}\n\n")).toEqual([])
    const fine = new SseParser()
    expect(fine.feed(`data: ${"z".repeat(mib - 100)}\n\n`)).toHaveLength(1)
    expect(fine.overflowed).toBe(false)
  })
})

describe("what a provider said is kept, whatever shape it came in", () => {
  const shapes: ReadonlyArray<readonly [MockProvider.Fault, RegExp]> = [
    ["error-as-200", /overloaded/i],
    ["html-as-200", /The server is overloaded/],
    ["malformed-sse", /overloaded/i],
    ["invalid-json", /overloaded/i]
  ]
  for (const transport of transports) {
    for (const kind of kinds) {
      for (const way of ["turn", "reply"] as const) {
        describe(`${transport.name}, ${kind.name}, by ${way}`, () => {
          for (const [fault, words] of shapes) {
            it.scopedLive(`a 200 that is ${fault} is judged by its words (RateLimited), which the failure quotes`, () =>
              Effect.gen(function*() {
                const mock = yield* MockProvider.make()
                yield* mock.script([{ fault }])
                const failed = yield* failure(way, transport.layer, kind.backend(mock.url), kind.place)
                expect(failed._tag).toBe("RateLimited")
                expect(failed.said).toMatch(words)
              }))
          }
        })
      }
    }
  }
})
