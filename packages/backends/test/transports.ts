/**
 * The two transports an HTTP provider sends by, each chosen by a layer: the HttpClient alone, or
 * with `HttpProvider.layerDirect` given the undici dispatcher the HttpClient runs on (one pool).
 * The main suites run over both.
 */
import { NodeHttpClient } from "@effect/platform-node"
import type * as Undici from "@effect/platform-node/Undici"
import { ConfigProvider, Effect, Layer } from "effect"
import type * as HttpClient from "effect/http/HttpClient"
import * as Http from "node:http"
import * as HttpProvider from "../src/HttpProvider.js"

export interface Transport {
  readonly name: string
  readonly direct: boolean
  readonly layer: Layer.Layer<HttpClient.HttpClient | NodeHttpClient.Dispatcher>
}

export const onClient: Transport = {
  name: "on the HttpClient",
  direct: false,
  layer: Layer.provideMerge(NodeHttpClient.layerUndiciNoDispatcher, NodeHttpClient.layerDispatcher)
}

export const direct: Transport = {
  name: "straight to undici",
  direct: true,
  layer: Layer.merge(NodeHttpClient.layerUndiciNoDispatcher, HttpProvider.layerDirect(NodeHttpClient.Dispatcher)).pipe(
    Layer.provideMerge(NodeHttpClient.layerDispatcher)
  )
}

export const transports: ReadonlyArray<Transport> = [onClient, direct]

/** An effect run with these variables as its config (the keys a provider reads). */
export const withEnv = (variables: Record<string, string>) =>
  Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromUnknown(variables))

/**
 * The requests `dispatcher` has sent and not seen end, once that count is `expected` (or after
 * 2 s of waiting for it: an abort closes the socket on the next turns of the event loop).
 */
export const settled = (dispatcher: Undici.Dispatcher, expected: number) =>
  Effect.gen(function*() {
    let count = -1
    for (let tries = 0; tries < 200 && count !== expected; tries++) {
      if (tries > 0) yield* Effect.sleep("10 millis")
      count = Object.values((dispatcher as Undici.Agent).stats).reduce((sum, stats) => sum + stats.running, 0)
    }
    return count
  })

/**
 * A Chat Completions server on 127.0.0.1 that sends its headers at once and its answer ("hi")
 * 50 ms later, for limits that must not fire early.
 */
export const slowServer = Effect.acquireRelease(
  Effect.callback<Http.Server>((resume) => {
    const server = Http.createServer((request, response) => {
      request.resume()
      request.on("end", () => {
        response.writeHead(200, { "content-type": "text/event-stream" })
        response.flushHeaders()
        setTimeout(() =>
          response.end(
            `data: ${JSON.stringify({ choices: [{ delta: { content: "hi" }, finish_reason: "stop" }] })}\n\n` +
              "data: [DONE]\n\n"
          ), 50)
      })
    })
    server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
  }),
  (server) => Effect.sync(() => server.close())
).pipe(Effect.map((server) => `http://127.0.0.1:${(server.address() as { port: number }).port}`))
