/**
 * A key a provider echoes in a response header never shows in a span (issue 23), whatever tracer
 * a program installed: inside an attempt, the HTTP client's spans show only the headers that say
 * how a request went (Telemetry.keptHeader); the others are redacted.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Accounts from "@fallback/core/Accounts"
import * as Agent from "@fallback/core/Agent"
import * as Backend from "@fallback/core/Backend"
import * as ConfigFile from "@fallback/core/ConfigFile"
import * as Health from "@fallback/core/Health"
import * as Notice from "@fallback/core/Notice"
import * as Steps from "@fallback/core/Steps"
import { Effect, Layer, Tracer } from "effect"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import * as OpenAiCompatible from "../src/OpenAiCompatible.js"
import { type Transport, transports, withEnv } from "./transports.js"

const key = "echoed-key-0123456789-q7"

/** Answers every request 401, saying the key it was sent back in headers of its own. */
const hostile = Effect.acquireRelease(
  Effect.callback<{ readonly url: string; readonly close: () => void }>((resume) => {
    const server = Http.createServer((request, response) => {
      request.resume()
      request.on("end", () => {
        response.writeHead(401, {
          "content-type": "application/json",
          "x-echo-key": String(request.headers.authorization).replace(/^Bearer /, ""),
          "www-authenticate": `Bearer realm="api", error="invalid_token", key="${key}"`
        })
        response.end(JSON.stringify({ error: { message: "invalid key" } }))
      })
    })
    server.listen(0, "127.0.0.1", () =>
      resume(Effect.succeed({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        close: () => server.close()
      })))
  }),
  (running) => Effect.sync(running.close)
)

const native = Tracer.nativeTracer

/** A tracer of a program's own: Effect's spans, each kept to read its attributes. */
const recording = (spans: Array<Tracer.Span>) =>
  Tracer.make({
    span(options) {
      const span = native.span(options)
      spans.push(span)
      return span
    }
  })

const world = (url: string, transport: Transport) => {
  const backends = Layer.unwrap(Effect.map(
    OpenAiCompatible.make({ name: "hostile", baseUrl: `${url}/v1`, key: { fromEnv: "HOSTILE_KEY" } }),
    (backend) => Backend.Backends.layer([backend])
  )).pipe(Layer.provide(transport.layer))
  const store = Layer.mergeAll(Steps.Steps.layer, Accounts.Accounts.layer).pipe(
    Layer.provide(ConfigFile.Store.layerMemory())
  )
  const notices = Layer.succeed(Notice.Notices, { publish: () => Effect.void, watch: Effect.die("not watched") })
  return Layer.mergeAll(backends, store, Health.Health.layerMemory(), notices)
}

describe("HTTP headers in spans", () => {
  for (const transport of transports) {
    it.live(`${transport.name}: a key echoed in a response header is in no span attribute; content-type still is`, () =>
      Effect.gen(function*() {
        const running = yield* hostile
        const spans: Array<Tracer.Span> = []
        yield* Effect.gen(function*() {
          const agent = yield* Agent.make("hostile/m")
          return yield* Effect.result(Agent.ask(agent, "hello"))
        }).pipe(
          Effect.provide(world(running.url, transport)),
          Effect.withTracer(recording(spans)),
          withEnv({ HOSTILE_KEY: key })
        )
        const attributes = spans.flatMap((span) => [...span.attributes.entries()])
        const headers = Object.fromEntries(attributes.filter(([name]) => name.startsWith("http.response.header.")))
        expect(headers["http.response.header.content-type"]).toBe("application/json")
        expect(Object.keys(headers)).toContain("http.response.header.x-echo-key")
        expect(attributes.filter(([, value]) => String(value).includes(key))).toEqual([])
      }))
  }
})
