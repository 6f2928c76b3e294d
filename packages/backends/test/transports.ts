/**
 * The two transports an HTTP provider sends by, each chosen by a layer: the HttpClient alone, or
 * with `HttpProvider.layerDirect` given the undici dispatcher the HttpClient runs on (one pool).
 * The main suites run over both.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { ConfigProvider, Effect, Layer } from "effect"
import type * as HttpClient from "effect/http/HttpClient"
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
