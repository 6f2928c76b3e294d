/**
 * What an HTTP provider sends that is not what it should (issue 23): a body or a line too long to
 * hold is read only as far as its bound and let go; a 200 that carries an error, an HTML page,
 * malformed events or invalid JSON is judged by its words, which the failure keeps.
 */
import { describe, expect, it } from "@effect/vitest"
import type * as Backend from "@fallback/core/Backend"
import type * as Failure from "@fallback/core/Failure"
import * as Place from "@fallback/core/Place"
import * as Settings from "@fallback/core/Settings"
import { MockProvider } from "@fallback/testkit"
import { Effect, Option, Stream } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import * as Http from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as AnthropicMessages from "../src/AnthropicMessages.js"
import * as HttpProvider from "../src/HttpProvider.js"
import { parse, SseParser } from "../src/internal/http/sse.js"
import * as OpenAiCompatible from "../src/OpenAiCompatible.js"
import { runOnce } from "./command.js"
import { type Transport, transports, withEnv } from "./transports.js"

const secret = "plain-test-secret-0123456789"
const keys = withEnv({ TEST_KEY: secret })

/** A server on 127.0.0.1 that answers every request 200 with this HTML page. */
const pageServer = (page: string) =>
  Effect.acquireRelease(
    Effect.callback<Http.Server>((resume) => {
      const server = Http.createServer((request, response) => {
        request.resume()
        request.on("end", () => {
          response.writeHead(200, { "content-type": "text/html" })
          response.end(page)
        })
      })
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
    }),
    (server) => Effect.sync(() => server.close())
  ).pipe(Effect.map((server) => `http://127.0.0.1:${(server.address() as { port: number }).port}`))

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

const prompt: Backend.Prompt = { text: "hello", history: [] }

/** One turn (streamed) or reply (whole) at a place through a fresh session: its failure. */
const failure = (
  way: "turn" | "reply",
  layer: Transport["layer"],
  provider: HttpProvider.Provider,
  place: Place.Place
): Effect.Effect<Failure.Failure> =>
  Effect.gen(function*() {
    const backend = yield* HttpProvider.make(provider)
    const session = yield* backend.open(place, Option.none(), Settings.plain, {})
    return way === "turn"
      ? (yield* Stream.runCollect(session.turn(prompt)))
      : yield* session.reply!(prompt, { by: Infinity, whole: Infinity, deadline: Infinity })
  }).pipe(
    Effect.scoped,
    keys,
    Effect.provide(layer),
    Effect.flip,
    Effect.orDie
  )

/** The bytes of body the client took before it let the request go, once the mock has seen it go. */
const taken = (mock: MockProvider.Service) =>
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
          it.live("a 500 with a 64 MiB body is read to its first 64 KiB, judged by them, and let go", () =>
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
          it.live("an event stream's line that never ends fails past 1 MiB, saying so, and is let go", () =>
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
            it.live(`a 200 that is ${fault} is judged by its words (RateLimited), which the failure quotes`, () =>
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

  for (const transport of transports) {
    it.live(`${transport.name}: the words kept are masked: a key the page echoes is not in the failure`, () =>
      Effect.gen(function*() {
        const url = yield* pageServer(`<html><body><p>Overloaded. Your key ${secret} is fine.</p></body></html>`)
        for (const way of ["turn", "reply"] as const) {
          const failed = yield* failure(way, transport.layer, kinds[1].backend(url), kinds[1].place)
          expect(failed._tag).toBe("RateLimited")
          expect(failed.said).toContain("Overloaded. Your key")
          expect(JSON.stringify(failed) + failed.message).not.toContain(secret)
        }
      }))
  }
})

describe("fallback run against a provider sending what it should not", () => {
  it(
    "each shape and size ends with an outcome line naming its kind; a huge body or line is let go past its bound",
    async () => {
      const mock = await MockProvider.start()
      const root = mkdtempSync(join(tmpdir(), "fallback-bodies-"))
      const cases = [
        ["error-as-200", "RateLimited"],
        ["html-as-200", "RateLimited"],
        ["malformed-sse", "RateLimited"],
        ["invalid-json", "RateLimited"],
        ["huge-error", "Unknown"],
        ["endless-line", "Unknown"]
      ] as const
      mock.script(cases.map(([fault], i) => ({ fault, model: `m${i}`, size: 64 * mib })))
      try {
        for (const [i, [fault, kind]] of cases.entries()) {
          const { code, lines, stderr } = await runOnce(join(root, String(i)), mock.url, `m${i}`)
          const outcome = lines.at(-1) ?? {}
          expect(outcome.type, `${fault}: ${stderr.slice(0, 300)}`).toBe("outcome")
          expect(outcome.kind, fault).toBe(kind)
          expect(code, fault).toBe(outcome.status)
        }
        const sent = mock.requests().log.flatMap((request) => request.sent === undefined ? [] : [request.sent])
        expect(sent).toHaveLength(2)
        for (const bytes of sent) expect(bytes).toBeLessThan(16 * mib)
      } finally {
        await mock.stop()
        rmSync(root, { recursive: true, force: true })
      }
    },
    120_000
  )
})
