/**
 * The transport on Effect's HttpClient: each request executed in the response's scope (its end
 * aborts a request whose body is not read), the body pulled piece by piece.
 */
import * as Failure from "@fallback/core/Failure"
import type * as Place from "@fallback/core/Place"
import * as Effect from "effect/Effect"
import * as HttpClient from "effect/http/HttpClient"
import type * as HttpClientError from "effect/http/HttpClientError"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as Pull from "effect/Pull"
import * as Stream from "effect/Stream"
import { cut, lost, notAUrl } from "./answer.js"
import type { Call, Transport } from "./response.js"
import { exported, spanName } from "./tracing.js"

/** The failure a request that got no response is. */
const unreached = (place: Place.Place, error: HttpClientError.HttpClientError): Failure.Failure =>
  error.reason._tag === "TransportError"
    ? lost(place, `could not reach ${error.request.url}`, error.reason.cause)
    : error.reason._tag === "InvalidUrlError"
    ? notAUrl(place, error.request.url)
    : new Failure.Unknown({ place, said: Failure.said(`${error.reason._tag}: ${error.message}`) })

/** What a body cut in the middle failed with, down to the socket's error. */
const causeOf = (error: HttpClientError.HttpClientError): unknown =>
  "cause" in error.reason ? error.reason.cause : error

const untraced = () => true

const everyHeader = () => true

const requestOf = (call: Call) => {
  const request = HttpClientRequest.make(call.method)(call.url).pipe(HttpClientRequest.setHeaders(call.headers))
  return call.body === undefined ? request : HttpClientRequest.bodyText(request, call.body, "application/json")
}

/**
 * Sends through `client`; a request is a span only where the program installed a tracer.
 *
 * @internal
 */
export const transport = (client: HttpClient.HttpClient): Transport => {
  const scoped = HttpClient.withScope(client)
  return {
    send: (call) =>
      Effect.withFiber((fiber) => {
        const sent = scoped.execute(requestOf(call))
        return (exported(fiber)
          ? sent.pipe(
            Effect.provideService(HttpClient.SpanNameGenerator, (request) => spanName(request.method)),
            // Every header in the span, as Effect 3's client had them: `Headers.CurrentRedactedNames`
            // (core's allow-list inside an attempt) decides which show their value.
            Effect.provideService(HttpClient.TracerHeaderFilter, everyHeader)
          )
          : Effect.provideService(sent, HttpClient.TracerDisabledWhen, untraced)).pipe(
            Effect.mapError((error) => unreached(call.place, error)),
            Effect.flatMap((response) =>
              Effect.map(Stream.toPull(response.stream), (pull) => ({
                status: response.status,
                headers: response.headers,
                next: pull.pipe(
                  Pull.catchDone(() => Effect.succeed(undefined)),
                  Effect.mapError((error) => cut(call.place, causeOf(error)))
                ),
                drain: () => {}
              }))
            )
          )
      })
  }
}
