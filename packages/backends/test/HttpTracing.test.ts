import { NodeHttpClient } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import * as Place from "@fallback/core/Place"
import * as Settings from "@fallback/core/Settings"
import { Effect, Layer, Option, Tracer } from "effect"
import type * as HttpClient from "effect/http/HttpClient"
import * as Http from "node:http"
import * as HttpProvider from "../src/HttpProvider.js"
import * as OpenAiCompatible from "../src/OpenAiCompatible.js"

/** A Chat Completions server on 127.0.0.1 that answers "hi" and keeps each request's headers. */
const server = Effect.acquireRelease(
  Effect.callback<{ readonly url: string; readonly seen: Array<Http.IncomingHttpHeaders>; readonly close: () => void }>(
    (resume) => {
      const seen: Array<Http.IncomingHttpHeaders> = []
      const listener = Http.createServer((request, response) => {
        seen.push(request.headers)
        request.resume()
        request.on("end", () => {
          response.writeHead(200, { "content-type": "text/event-stream" })
          response.end(
            `data: ${
              JSON.stringify({ choices: [{ delta: { content: "hi" }, finish_reason: "stop" }] })
            }\n\ndata: [DONE]\n\n`
          )
        })
      })
      listener.listen(0, "127.0.0.1", () => {
        const { port } = listener.address() as { port: number }
        resume(Effect.succeed({ url: `http://127.0.0.1:${port}`, seen, close: () => listener.close() }))
      })
    }
  ),
  (running) => Effect.sync(running.close)
)

const native = Tracer.nativeTracer

/** A tracer of a program's own, as an exporter installs one: it keeps the names of the spans it starts. */
const keeping = (names: Array<string>) =>
  Tracer.make({
    span(options) {
      names.push(options.name)
      return native.span(options)
    }
  })

/** The HttpClient alone, or with the undici dispatcher it runs on given as the providers' Dispatcher. */
const clients = {
  "on the HttpClient": NodeHttpClient.layerUndici,
  "with the Dispatcher given": Layer.merge(
    NodeHttpClient.layerUndiciNoDispatcher,
    HttpProvider.layerDirect(NodeHttpClient.Dispatcher)
  ).pipe(Layer.provide(NodeHttpClient.layerDispatcher))
}

const reply = (url: string, client: Layer.Layer<HttpClient.HttpClient>) =>
  Effect.gen(function*() {
    const backend = yield* OpenAiCompatible.make({ name: "local", baseUrl: url })
    const session = yield* backend.open(
      Place.Place.make({ cli: "local", model: "m" }),
      Option.none(),
      Settings.plain,
      {}
    )
    return yield* session.reply!({ text: "hello", history: [] }, { by: Infinity, whole: Infinity, deadline: Infinity })
  }).pipe(Effect.scoped, Effect.provide(client))

describe("an HTTP provider's requests and tracing", () => {
  for (const [name, client] of Object.entries(clients)) {
    describe(name, () => {
      it.live("under Effect's own tracer, a request is no span and carries no trace headers", () =>
        Effect.gen(function*() {
          const running = yield* server
          yield* reply(running.url, client)
          expect(running.seen).toHaveLength(1)
          expect(Object.keys(running.seen[0]!)).not.toContain("traceparent")
          expect(Object.keys(running.seen[0]!)).not.toContain("b3")
        }))

      it.live("under a tracer a program installed, each request is a span and carries its trace headers", () =>
        Effect.gen(function*() {
          const running = yield* server
          const names: Array<string> = []
          yield* Effect.withTracer(reply(running.url, client), keeping(names))
          expect(names).toContain("http.client POST")
          expect(Object.keys(running.seen[0]!)).toContain("traceparent")
        }))
    })
  }
})
