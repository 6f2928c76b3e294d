/**
 * Issue 25 over HTTP, against the testkit's mock provider on both transports: an error inside a
 * 200 is its kind; a stream that misbehaves but answers is finished cleanly (a malformed event
 * skipped and counted, a missing end marker, the usage and the model that answered); the
 * assistant-prefill continuation and its refusal; the provider's model list's context windows;
 * a reply's first content and its stall bounded, the request let go.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import * as Backend from "@fallback/core/Backend"
import * as Notice from "@fallback/core/Notice"
import * as Place from "@fallback/core/Place"
import * as Settings from "@fallback/core/Settings"
import { MockProvider } from "@fallback/testkit"
import { Effect, Option, Stream } from "effect"
import * as Http from "node:http"
import * as AnthropicMessages from "../src/AnthropicMessages.js"
import * as HttpProvider from "../src/HttpProvider.js"
import * as OpenAiCompatible from "../src/OpenAiCompatible.js"
import { settled, type Transport, transports, withEnv } from "./transports.js"

interface Kind {
  readonly name: string
  readonly cli: string
  readonly provider: (url: string, extra?: Partial<HttpProvider.Provider>) => HttpProvider.Provider
}

const kinds: ReadonlyArray<Kind> = [
  {
    name: "Anthropic Messages",
    cli: "anthropic",
    provider: (url, extra = {}) => AnthropicMessages.provider({ baseUrl: url, key: { fromEnv: "TEST_KEY" }, ...extra })
  },
  {
    name: "OpenAI-compatible",
    cli: "local",
    provider: (url, extra = {}) => OpenAiCompatible.provider({ name: "local", baseUrl: `${url}/v1`, ...extra })
  }
]

const prompt: Backend.Prompt = { text: "hello", history: [] }

type Way = "turn" | "reply"

/** A turn through a fresh session, streamed or whole; the notices it published beside it. */
const taken = (
  transport: Transport,
  way: Way,
  provider: HttpProvider.Provider,
  model: string,
  asked: Backend.Prompt = prompt,
  options: HttpProvider.Options = {},
  limits: Backend.Limits = { by: Infinity, whole: Infinity, deadline: Infinity }
) => {
  const notices: Array<Notice.Notice> = []
  return Effect.gen(function*() {
    const backend = yield* HttpProvider.make(provider, options)
    const session = yield* backend.open(
      Place.Place.make({ cli: provider.name, model }),
      Option.none(),
      Settings.plain,
      {}
    )
    return way === "turn"
      ? yield* Stream.runCollect(session.turn(asked))
      : yield* session.reply!(asked, limits)
  }).pipe(
    Effect.scoped,
    withEnv({ TEST_KEY: "test-key" }),
    Effect.provideService(Notice.Notices, {
      publish: (notice) => Effect.sync(() => void notices.push(notice)),
      watch: Effect.succeed(Stream.empty)
    }),
    Effect.provide(transport.layer),
    Effect.map((events) => ({ events, notices }))
  )
}

const resultOf = (events: ReadonlyArray<Backend.Event>) => {
  const result = events.find((event) => event._tag === "Result")
  return result?._tag === "Result" ? result : undefined
}

const textOf = (events: ReadonlyArray<Backend.Event>) =>
  events.flatMap((event) => event._tag === "Text" ? [event.text] : []).join("")

/**
 * A server on 127.0.0.1 that answers every POST with `body` (an event stream) and every GET with
 * `list` (a model list), each whole.
 */
const serving = (body: string, list = "{}") =>
  Effect.acquireRelease(
    Effect.callback<Http.Server>((resume) => {
      const server = Http.createServer((request, response) => {
        request.resume()
        request.on("end", () => {
          const stream = request.method === "POST"
          response.writeHead(200, { "content-type": stream ? "text/event-stream" : "application/json" })
          response.end(stream ? body : list)
        })
      })
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
    }),
    (server) => Effect.sync(() => server.close())
  ).pipe(Effect.map((server) => `http://127.0.0.1:${(server.address() as { port: number }).port}`))

const chunk = (content: string) => `data: ${JSON.stringify({ model: "m", choices: [{ delta: { content } }] })}\n\n`

describe("HTTP providers, issue 25", () => {
  for (const transport of transports) {
    describe(transport.name, () => {
      for (const kind of kinds) {
        describe(kind.name, () => {
          for (const way of ["turn", "reply"] as const) {
            describe(`by ${way}`, () => {
              it.live("an error event inside a 200 is its kind (overloaded, read by core's classifier)", () =>
                Effect.gen(function*() {
                  const mock = yield* MockProvider.make()
                  const failed = yield* Effect.flip(
                    taken(transport, way, kind.provider(mock.url), "m-fault-stream-error")
                  )
                  // Anthropic's `overloaded_error` is RateLimited, Chat Completions' `server_error` Unknown.
                  expect(failed._tag).toBe(kind.cli === "anthropic" ? "RateLimited" : "Unknown")
                }))

              it.live("a malformed event is skipped and counted in a Malformed notice; the answer completes", () =>
                Effect.gen(function*() {
                  const mock = yield* MockProvider.make({ text: "the answer is 42" })
                  const { events, notices } = yield* taken(
                    transport,
                    way,
                    kind.provider(mock.url),
                    "m-fault-malformed-event"
                  )
                  expect(textOf(events)).toBe("the answer is 42")
                  expect(resultOf(events)?.text).toBe("the answer is 42")
                  expect(notices.map((notice) => notice._tag === "Malformed" ? notice.skipped : notice._tag)).toEqual([
                    1
                  ])
                  expect(Notice.format(notices[0]!)).toContain("1 malformed event")
                }))

              it.live("a body that ends without its end marker is finished at once, with its usage and the model that answered", () =>
                Effect.gen(function*() {
                  const mock = yield* MockProvider.make({ text: "the answer is 42" })
                  // An idle limit far off: the answer must not wait for it.
                  const { events } = yield* taken(
                    transport,
                    way,
                    kind.provider(mock.url),
                    "m-fault-no-sentinel",
                    prompt,
                    { idle: "10 minutes" }
                  )
                  const result = resultOf(events)
                  expect(result?.text).toBe("the answer is 42")
                  expect(result?.model).toBe("m-fault-no-sentinel")
                  expect(result?.usage.output).toBeGreaterThan(0)
                  expect((yield* mock.requests).log.map((request) => request.ended)).toEqual(["complete"])
                }))

              it.live("the Result names the model the provider said answered", () =>
                Effect.gen(function*() {
                  const mock = yield* MockProvider.make()
                  const { events } = yield* taken(transport, way, kind.provider(mock.url), "model-a")
                  expect(resultOf(events)?.model).toBe("model-a")
                }))

              it.live("a refused continuation (400 to a prefill) is ArgumentsRefused(prefill), not Unknown", () =>
                Effect.gen(function*() {
                  const mock = yield* MockProvider.make()
                  const failed = yield* Effect.flip(taken(
                    transport,
                    way,
                    kind.provider(mock.url, { continues: true }),
                    "m-fault-no-prefill",
                    { ...prompt, prefill: "the ans" }
                  ))
                  expect(failed._tag === "ArgumentsRefused" && failed.argument).toBe("prefill")
                  expect((yield* mock.requests).log.map((request) => request.prefill)).toEqual(["the ans"])
                }))

              it.live("a continuation is sent as the final assistant message; the place answers the rest", () =>
                Effect.gen(function*() {
                  const mock = yield* MockProvider.make({ text: "the answer is 42" })
                  const provider = kind.provider(mock.url, kind.cli === "anthropic" ? {} : { continues: true })
                  const { events } = yield* taken(transport, way, provider, "model-a", {
                    ...prompt,
                    prefill: "the ans"
                  })
                  expect(textOf(events)).toBe("wer is 42")
                  expect((yield* mock.requests).log.map((request) => request.prefill)).toEqual(["the ans"])
                }))
            })
          }

          it.live("a turn's stream that stalls mid-answer ends at the idle limit as Unresponsive, its request let go", () =>
            Effect.gen(function*() {
              const mock = yield* MockProvider.make()
              const failed = yield* Effect.flip(
                taken(transport, "turn", kind.provider(mock.url), "m-fault-stall", prompt, { idle: "200 millis" })
              )
              expect(failed._tag).toBe("Unresponsive")
              expect(yield* settled(yield* NodeHttpClient.Dispatcher, 0)).toBe(0)
            }).pipe(Effect.provide(transport.layer)))

          it.live("a reply whose body stalls once its content began ends at the stall limit as Unresponsive, its request let go", () =>
            Effect.gen(function*() {
              const mock = yield* MockProvider.make()
              const failed = yield* Effect.flip(
                taken(transport, "reply", kind.provider(mock.url), "m-fault-stall", prompt, { idle: "200 millis" })
              )
              expect(failed._tag).toBe("Unresponsive")
              expect(yield* settled(yield* NodeHttpClient.Dispatcher, 0)).toBe(0)
            }).pipe(Effect.provide(transport.layer)))

          it.live("a reply keeps the engine's stall limit (`Limits.stall`) where it is shorter than the provider's idle", () =>
            Effect.gen(function*() {
              const mock = yield* MockProvider.make()
              const now = Date.now()
              const failed = yield* Effect.flip(taken(
                transport,
                "reply",
                kind.provider(mock.url),
                "m-fault-stall",
                prompt,
                { idle: "10 minutes" },
                { by: now + 60_000, whole: now + 600_000, deadline: now + 600_000, stall: 200 }
              ))
              expect(failed._tag).toBe("Unresponsive")
              expect(yield* settled(yield* NodeHttpClient.Dispatcher, 0)).toBe(0)
            }).pipe(Effect.provide(transport.layer)))

          it.live("a reply's first byte is its first content: opening frames do not meet the first-byte limit", () =>
            Effect.gen(function*() {
              const mock = yield* MockProvider.make()
              const now = Date.now()
              const failed = yield* Effect.flip(taken(
                transport,
                "reply",
                kind.provider(mock.url),
                "m-fault-slow-token-60000",
                prompt,
                {},
                { by: now + 300, whole: now + 60_000, deadline: now + 60_000 }
              ))
              expect(failed._tag === "Timeout" && failed.phase).toBe("first-byte")
              expect(yield* settled(yield* NodeHttpClient.Dispatcher, 0)).toBe(0)
            }).pipe(Effect.provide(transport.layer)))

          it.live("the provider's first-byte limit ends a turn that never answers, its request let go", () =>
            Effect.gen(function*() {
              const mock = yield* MockProvider.make()
              const provider = HttpProvider.Provider.make({ ...kind.provider(mock.url), timeouts: { firstByte: 0.2 } })
              const failed = yield* Effect.flip(taken(transport, "turn", provider, "m-fault-hang"))
              expect(failed._tag === "Timeout" && failed.phase).toBe("first-byte")
              expect(yield* settled(yield* NodeHttpClient.Dispatcher, 0)).toBe(0)
            }).pipe(Effect.provide(transport.layer)))
        })
      }

      it.live("Chat Completions: an error event, or plain words, inside a 200 after content are their kind, not a lost connection", () =>
        Effect.gen(function*() {
          const provider = (url: string) => OpenAiCompatible.provider({ name: "local", baseUrl: `${url}/v1` })
          const named = yield* serving(`${chunk("Hel")}event: error\ndata: The server is overloaded\n\n`)
          const plain = yield* serving(`${chunk("Hel")}data: The server is overloaded, please try again\n\n`)
          const typed = yield* serving(
            `${chunk("Hel")}data: ${
              JSON.stringify({ type: "response.failed", response: { error: { code: "server_is_overloaded" } } })
            }\n\n`
          )
          for (const url of [named, plain, typed]) {
            for (const way of ["turn", "reply"] as const) {
              const failed = yield* Effect.flip(taken(transport, way, provider(url), "m"))
              expect(failed._tag === "RateLimited" && failed.reason).toBe("overloaded")
            }
          }
        }))
    })
  }

  describe("declaring the continuation", () => {
    const capabilities = (provider: HttpProvider.Provider) =>
      Effect.map(HttpProvider.make(provider), (backend) => backend).pipe(
        Effect.provide(NodeHttpClient.layerUndici)
      )

    it.effect("Anthropic Messages continues; OpenAI-compatible only where its config says; OpenAI's own API never", () =>
      Effect.gen(function*() {
        const anthropic = yield* capabilities(
          AnthropicMessages.provider({ models: [{ name: "old", continues: false }] })
        )
        expect(anthropic.kind).toBe("http")
        expect(Backend.continuesAt(anthropic, Place.Place.make({ cli: "anthropic", model: "claude-x" }))).toBe(true)
        expect(Backend.continuesAt(anthropic, Place.Place.make({ cli: "anthropic", model: "old" }))).toBe(false)
        const local = OpenAiCompatible.provider({ name: "local", baseUrl: "http://127.0.0.1:1/v1" })
        const plain = yield* capabilities(local)
        expect(Backend.continuesAt(plain, Place.Place.make({ cli: "local", model: "q" }))).toBe(false)
        const byModel = yield* capabilities(
          OpenAiCompatible.provider({ ...local, models: [{ name: "q", continues: true }, { name: "r" }] })
        )
        expect(Backend.continuesAt(byModel, Place.Place.make({ cli: "local", model: "q" }))).toBe(true)
        expect(Backend.continuesAt(byModel, Place.Place.make({ cli: "local", model: "r" }))).toBe(false)
        const byProvider = yield* capabilities(OpenAiCompatible.provider({ ...local, continues: true }))
        expect(Backend.continuesAt(byProvider, Place.Place.make({ cli: "local", model: "q" }))).toBe(true)
        const openAi = yield* capabilities(
          OpenAiCompatible.provider({
            name: "openai",
            baseUrl: "https://api.openai.com/v1",
            continues: true,
            models: [{ name: "gpt-x", continues: true }]
          })
        )
        expect(Backend.continuesAt(openAi, Place.Place.make({ cli: "openai", model: "gpt-x" }))).toBe(false)
        expect(Backend.continuesAt(openAi, Place.Place.make({ cli: "openai", model: "gpt-y" }))).toBe(false)
      }))

    for (const transport of transports) {
      it.live(`${transport.name}: a prefill to a model that does not continue is refused unsent`, () =>
        Effect.gen(function*() {
          const mock = yield* MockProvider.make()
          for (const way of ["turn", "reply"] as const) {
            const failed = yield* Effect.flip(
              taken(transport, way, kinds[1]!.provider(mock.url), "model-a", { ...prompt, prefill: "the ans" })
            )
            expect(failed._tag === "ArgumentsRefused" && failed.argument).toBe("prefill")
          }
          expect((yield* mock.requests).total).toBe(0)
        }))
    }
  })

  describe("context windows from the provider's model list", () => {
    it.live("`discover` fills each model's window from the list (context_length, context_window, max_model_len, max_input_tokens); the config's wins", () =>
      Effect.gen(function*() {
        const url = yield* serving(
          "",
          JSON.stringify({
            data: [
              { id: "a", context_length: 131072 },
              { id: "b", context_window: 8192 },
              { id: "c", max_model_len: 32768 },
              { id: "d", max_input_tokens: 200000 },
              { id: "e" },
              { id: "f", context_length: 4096 }
            ]
          })
        )
        const backend = yield* HttpProvider.make(
          OpenAiCompatible.provider({
            name: "local",
            baseUrl: `${url}/v1`,
            models: [{ name: "f", contextWindow: 1000 }]
          }),
          { discover: true }
        )
        const windows = Object.fromEntries(
          backend.capabilities.models.map((model) => [model.name, model.contextWindow])
        )
        expect(windows).toEqual({ f: 1000, a: 131072, b: 8192, c: 32768, d: 200000, e: undefined })
        const at = (model: string) => Backend.modelAt(backend, Place.Place.make({ cli: "local", model })).contextWindow
        expect(at("a")).toBe(131072)
      }).pipe(Effect.scoped, Effect.provide(NodeHttpClient.layerUndici)))

    it.live("a model list that cannot be read leaves the config's models as they are", () =>
      Effect.gen(function*() {
        const mock = yield* MockProvider.make()
        const backend = yield* HttpProvider.make(
          OpenAiCompatible.provider({
            name: "local",
            baseUrl: `${mock.refusedUrl}/v1`,
            models: [{ name: "q", contextWindow: 1000 }]
          }),
          { discover: true }
        )
        expect(backend.capabilities.models.map((model) => [model.name, model.contextWindow])).toEqual([["q", 1000]])
      }).pipe(Effect.provide(NodeHttpClient.layerUndici)))
  })
})
