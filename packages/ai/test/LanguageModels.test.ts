/**
 * fallback's own HTTP providers as `effect/ai` language models, each used alone: text, streaming,
 * tool calls through a Toolkit, structured output, and refusals as the `AiError` reasons of their
 * kinds. Against the testkit's loopback mock, and against a plain HTTP server on 127.0.0.1.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { MockProvider } from "@fallback/testkit"
import { Duration, Effect, Layer, Redacted, Result, Schema, Stream } from "effect"
import { AiError, LanguageModel, Tool, Toolkit } from "effect/ai"
import * as Http from "node:http"

import { AiFailure, AnthropicLanguageModel, OpenAiLanguageModel } from "../src/index.js"
import { mocked } from "./world.js"

const key = "sk-proj-providersecretsecretsecret0042"

type Wire = "anthropic" | "responses" | "chat"

/** The model of `wire` on the server at `url`, its key given as a value. */
const modelOf = (wire: Wire, url: string, apiKey: Redacted.Redacted | null = Redacted.make(key)) =>
  (wire === "anthropic"
    ? AnthropicLanguageModel.layer({ model: "claude-x", baseUrl: url, apiKey: apiKey ?? undefined })
    : OpenAiLanguageModel.layer({ model: "gpt-x", api: wire, baseUrl: `${url}/v1`, apiKey })).pipe(
      Layer.orDie,
      Layer.provide(NodeHttpClient.layerUndici)
    )

const wires: ReadonlyArray<Wire> = ["anthropic", "responses", "chat"]

const Weather = Tool.make("Weather", {
  description: "The weather in a city",
  parameters: Schema.Struct({ city: Schema.String }),
  success: Schema.Struct({ sky: Schema.String })
})
const tools = Toolkit.make(Weather)
const handlers = tools.toLayer({ Weather: ({ city }) => Effect.succeed({ sky: city === "Oslo" ? "grey" : "blue" }) })

const textOf = (parts: ReadonlyArray<{ readonly type: string; readonly delta?: string }>) =>
  parts.flatMap((part) => part.type === "text-delta" ? [part.delta ?? ""] : []).join("")

describe("fallback's HTTP providers as effect/ai language models (over the loopback mock)", () => {
  for (const wire of wires) {
    describe(wire, () => {
      it.live("generateText answers with the text, sent to the wire's route with the key", () =>
        Effect.gen(function*() {
          const mock = yield* MockProvider.make({ text: `answered on ${wire}`, bodies: true })
          const response = yield* LanguageModel.generateText({
            prompt: [{ role: "system", content: "Be brief." }, { role: "user", content: "hello" }]
          }).pipe(Effect.provide(modelOf(wire, mock.url)))
          expect(response.text).toBe(`answered on ${wire}`)
          expect(response.finishReason).toBe("stop")
          const [request] = (yield* mock.requests).log
          expect(request!.route).toBe(wire)
          expect(request!.key).toBe(key)
          expect(JSON.stringify(request!.body)).toContain("Be brief.")
        }))

      it.live("streamText streams the text as deltas, then a finish part", () =>
        Effect.gen(function*() {
          const mock = yield* MockProvider.make({ text: "a streamed answer in pieces" })
          const parts = yield* LanguageModel.streamText({ prompt: "hello" }).pipe(
            Stream.runCollect,
            Effect.provide(modelOf(wire, mock.url))
          )
          expect(textOf(parts)).toBe("a streamed answer in pieces")
          expect(parts.filter((part) => part.type === "finish")).toHaveLength(1)
          expect((yield* mock.requests).log.map((r) => r.route)).toEqual([wire])
        }))

      it.live("a tool call through a Toolkit: the call decoded, its handler run, the result given back", () =>
        Effect.gen(function*() {
          const mock = yield* mocked(
            [{ fault: "answer", route: wire, times: 1, tool: { input: { city: "Oslo" } } }],
            { bodies: true }
          )
          const response = yield* LanguageModel.generateText({ prompt: "Weather in Oslo?", toolkit: tools }).pipe(
            Effect.provide(Layer.merge(modelOf(wire, mock.url), handlers))
          )
          expect(response.toolCalls.map((call) => [call.name, call.params])).toEqual([["Weather", { city: "Oslo" }]])
          expect(response.toolResults[0]!.result).toEqual({ sky: "grey" })
          expect(response.finishReason).toBe("tool-calls")
          const sent = JSON.stringify((yield* mock.requests).log[0]!.body)
          expect(sent).toContain("The weather in a city")
        }))

      it.live("a streamed tool call: its parameters streamed, then the call and its result", () =>
        Effect.gen(function*() {
          const mock = yield* mocked([{
            fault: "answer",
            route: wire,
            times: 1,
            tool: { input: { city: "Bergen" } }
          }])
          const parts = yield* LanguageModel.streamText({ prompt: "Weather in Bergen?", toolkit: tools }).pipe(
            Stream.runCollect,
            Effect.provide(Layer.merge(modelOf(wire, mock.url), handlers))
          )
          const call = parts.find((part) => part.type === "tool-call")
          expect(call?.type === "tool-call" ? [call.name, call.params] : undefined).toEqual(["Weather", {
            city: "Bergen"
          }])
          const result = parts.find((part) => part.type === "tool-result")
          expect(result?.type === "tool-result" ? result.result : undefined).toEqual({ sky: "blue" })
        }))

      it.live("generateObject: the answer decoded by the schema", () =>
        Effect.gen(function*() {
          const mock = yield* mocked([{ fault: "answer", route: wire, json: { city: "Oslo", degrees: 4 } }], {
            bodies: true
          })
          const response = yield* LanguageModel.generateObject({
            prompt: "Weather in Oslo?",
            objectName: "weather",
            schema: Schema.Struct({ city: Schema.String, degrees: Schema.Number })
          }).pipe(Effect.provide(modelOf(wire, mock.url)))
          expect(response.value).toEqual({ city: "Oslo", degrees: 4 })
          const sent = JSON.stringify((yield* mock.requests).log[0]!.body)
          expect(sent).toContain("\"degrees\"")
        }))

      it.live("a rate limit is a RateLimitError with its retry-after, the kind noted, caught by its reason", () =>
        Effect.gen(function*() {
          const mock = yield* mocked([{ fault: "rate-limit", route: wire, retryAfter: 30 }])
          const caught = yield* LanguageModel.generateText({ prompt: "hello" }).pipe(
            Effect.provide(modelOf(wire, mock.url)),
            Effect.catchReason(
              "AiError",
              "RateLimitError",
              (reason) => Effect.succeed({ after: reason.retryAfter, kind: reason.metadata.fallback?.kind })
            )
          )
          if (!("kind" in caught)) return expect.unreachable("the call answered")
          expect(caught.kind).toBe("RateLimited")
          expect(Duration.toMillis(caught.after!)).toBe(30_000)
        }))

      it.live("refusals fail as their kinds' reasons, with no key in them", () =>
        Effect.gen(function*() {
          const mock = yield* MockProvider.make()
          const kinds: Array<[string | undefined, string]> = []
          for (
            const fault of ["unauthorized", "model-not-found", "context-too-long", "quota", "server-error"] as const
          ) {
            yield* mock.script([{ fault, route: wire }])
            const error = yield* Effect.flip(
              LanguageModel.generateText({ prompt: "hello" }).pipe(Effect.provide(Layer.fresh(modelOf(wire, mock.url))))
            )
            expect(AiError.isAiError(error)).toBe(true)
            expect(JSON.stringify(error) + error.message + String(error)).not.toContain(key)
            kinds.push([AiFailure.kindOf(error), error.reason._tag])
          }
          expect(kinds).toEqual([
            ["AuthRefused", "AuthenticationError"],
            ["ModelNotFound", "InvalidRequestError"],
            ["ContextTooLong", "InvalidRequestError"],
            ["QuotaExhausted", "QuotaExhaustedError"],
            ["Unknown", "UnknownError"]
          ])
        }))

      it.live("an error inside the stream fails it as its kind; a cut stream as a lost connection", () =>
        Effect.gen(function*() {
          const mock = yield* mocked([{ fault: "stream-error", route: wire, times: 1 }, {
            fault: "cut",
            route: wire
          }], { text: "a long answer that is cut" })
          const inside = yield* Effect.flip(
            Stream.runDrain(LanguageModel.streamText({ prompt: "hello" })).pipe(Effect.provide(modelOf(wire, mock.url)))
          )
          expect(AiFailure.kindOf(inside as AiError.AiError)).toMatch(/RateLimited|Unknown/)
          const cut = yield* Effect.flip(
            Stream.runDrain(LanguageModel.streamText({ prompt: "hello" })).pipe(
              Effect.provide(Layer.fresh(modelOf(wire, mock.url)))
            )
          )
          expect(AiFailure.kindOf(cut as AiError.AiError)).toBe("ConnectionLost")
        }))
    })
  }
})

/** A plain HTTP server on 127.0.0.1 answering every request with `reply`, keeping what it was asked. */
const server = (reply: (request: Http.IncomingMessage, response: Http.ServerResponse) => void) =>
  Effect.acquireRelease(
    Effect.callback<{ readonly url: string; readonly asked: Array<Http.IncomingHttpHeaders> }>((resume) => {
      const asked: Array<Http.IncomingHttpHeaders> = []
      const running = Http.createServer((request, response) => {
        asked.push(request.headers)
        request.resume()
        request.on("end", () => reply(request, response))
      })
      running.listen(0, "127.0.0.1", () => {
        const address = running.address() as { port: number }
        resume(Effect.succeed({ url: `http://127.0.0.1:${address.port}`, asked, running } as any))
      })
    }),
    (held: any) => Effect.callback<void>((resume) => held.running.close(() => resume(Effect.void)))
  )

const chunk = (delta: Record<string, unknown>, finish: string | null) =>
  `data: ${JSON.stringify({ id: "c1", model: "qwen3:8b", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`

describe("an OpenAI-compatible server as a language model (a real HTTP server on 127.0.0.1)", () => {
  const local = (url: string) =>
    OpenAiLanguageModel.layerCompatible({ name: "local", model: "qwen3:8b", baseUrl: `${url}/v1` }).pipe(
      Layer.orDie,
      Layer.provide(NodeHttpClient.layerUndici)
    )

  it.live("a stream that ends after its finish reason with no [DONE] is a whole answer; no key is sent", () =>
    Effect.gen(function*() {
      const running = yield* server((_, response) => {
        response.writeHead(200, { "content-type": "text/event-stream" })
        response.end(chunk({ role: "assistant", content: "local " }, null) + chunk({ content: "answer" }, "stop"))
      })
      const parts = yield* LanguageModel.streamText({ prompt: "hello" }).pipe(
        Stream.runCollect,
        Effect.provide(local(running.url))
      )
      expect(textOf(parts)).toBe("local answer")
      expect(parts.some((part) => part.type === "finish")).toBe(true)
      expect(running.asked[0]!.authorization).toBeUndefined()
    }))

  it.live("a stream that ends with no finish reason is a lost connection", () =>
    Effect.gen(function*() {
      const running = yield* server((_, response) => {
        response.writeHead(200, { "content-type": "text/event-stream" })
        response.end(chunk({ role: "assistant", content: "half an" }, null))
      })
      const exit = yield* LanguageModel.streamText({ prompt: "hello" }).pipe(
        Stream.runDrain,
        Effect.provide(local(running.url)),
        Effect.result
      )
      expect(Result.isFailure(exit)).toBe(true)
      if (Result.isFailure(exit)) expect(AiFailure.kindOf(exit.failure)).toBe("ConnectionLost")
    }))

  it.live("a 503 with retry-after is an overload: a RateLimitError with the wait asked", () =>
    Effect.gen(function*() {
      const running = yield* server((_, response) => {
        response.writeHead(503, { "content-type": "application/json", "retry-after": "7" })
        response.end(JSON.stringify({ error: { message: "loading model", type: "unavailable" } }))
      })
      const error = yield* Effect.flip(
        LanguageModel.generateText({ prompt: "hello" }).pipe(Effect.provide(local(running.url)))
      )
      expect(error.reason._tag).toBe("RateLimitError")
      expect(AiFailure.kindOf(error)).toBe("RateLimited")
      expect(Duration.toMillis(error.retryAfter!)).toBe(7_000)
    }))

  it.live("a server that cannot be reached is a NetworkError: a lost connection", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        LanguageModel.generateText({ prompt: "hello" }).pipe(Effect.provide(local("http://127.0.0.1:1")))
      )
      expect(error.reason._tag).toBe("NetworkError")
      expect(AiFailure.kindOf(error)).toBe("ConnectionLost")
    }))
})
