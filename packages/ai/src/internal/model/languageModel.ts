import * as Classify from "@fallback/core/Classify"
import * as Failure from "@fallback/core/Failure"
import * as Place from "@fallback/core/Place"
import * as AiError from "effect/ai/AiError"
import * as LanguageModel from "effect/ai/LanguageModel"
import type * as Response from "effect/ai/Response"
import * as Clock from "effect/Clock"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Sse from "effect/encoding/Sse"
import * as HttpClient from "effect/http/HttpClient"
import type * as HttpClientError from "effect/http/HttpClientError"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import type * as HttpClientResponse from "effect/http/HttpClientResponse"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"

import { toReason, urlOf } from "../aiFailure.js"
import { spread } from "../chunks.js"
import { reference } from "../generation.js"
import { held } from "../held.js"
import { owned } from "./direct.js"
import { toEnd } from "./toEnd.js"
import type { Model, Wire } from "./wire.js"

/**
 * How a provider's model is reached: its base URL, its key (none for a local server that wants
 * none), the headers sent with every call, and the model and its length cap.
 *
 * @internal
 */
export interface Options extends Model {
  readonly baseUrl: string
  readonly apiKey?: Config.Config<Redacted.Redacted> | Redacted.Redacted | undefined
  readonly headers?: Readonly<Record<string, string>> | undefined
  /** The provider's name, as the places that use it name it (for the failures' notes). */
  readonly name: string
}

/** The place a failure of this model is noted at: `name/model` (a model no place could name is noted by its provider only). */
const placeOf = (options: Options): Place.Place => {
  try {
    return new Place.Place({ cli: options.name, model: options.model })
  } catch {
    return new Place.Place({ cli: options.name, model: "model" })
  }
}

/** The reason a refusal is, by the one classifier: its status, its rate-limit headers, its words. */
const refused = (
  wire: Wire,
  options: Options,
  method: string,
  refusal: Classify.Refusal & { readonly headers: Record<string, string> },
  url: string
) =>
  Effect.map(Clock.currentTimeMillis, (now) =>
    AiError.make({
      module: wire.module,
      method,
      reason: toReason(
        Classify.classify(refusal, placeOf(options), now),
        refusal.status === undefined
          ? undefined
          : { status: refusal.status, headers: refusal.headers, body: refusal.body, url }
      )
    }))

const lost = (wire: Wire, options: Options, method: string, said: string) =>
  AiError.make({
    module: wire.module,
    method,
    reason: toReason(new Failure.ConnectionLost({ place: placeOf(options), said: Failure.said(said) }))
  })

const transport = (wire: Wire, method: string) => (error: HttpClientError.HttpClientError) =>
  AiError.make({
    module: wire.module,
    method,
    reason: new AiError.NetworkError({
      reason: error.reason._tag === "EncodeError" || error.reason._tag === "InvalidUrlError"
        ? error.reason._tag
        : "TransportError",
      method: "POST",
      url: urlOf(error.request.url),
      description: Failure.said(error.reason.description ?? error.reason._tag)
    })
  })

const headersOf = (response: HttpClientResponse.HttpClientResponse): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(response.headers)) if (typeof value === "string") out[name] = value
  return out
}

/** A refusal's body as the classifier reads it: its head, and whether there was more (a body can be as long as a provider likes). */
const headOf = (response: HttpClientResponse.HttpClientResponse) =>
  Effect.map(
    Effect.orElseSucceed(response.text, () => ""),
    (text) => ({ body: text.slice(0, Classify.longestRefusal), cut: text.length > Classify.longestRefusal })
  )

/** @internal */
export const make = Effect.fnUntraced(function*(wire: Wire, options: Options) {
  const client = yield* HttpClient.HttpClient
  const key = options.apiKey === undefined
    ? undefined
    : yield* held(Redacted.isRedacted(options.apiKey) ? Config.succeed(options.apiKey) : options.apiKey)
  const url = `${options.baseUrl.replace(/\/+$/, "")}${wire.path}`
  const headers = wire.headers(key === undefined ? undefined : Redacted.value(key), options.headers ?? {})

  // the generation options are the calling fiber's, read as the call is made
  const send = (provider: LanguageModel.ProviderOptions, stream: boolean, method: string) =>
    Effect.flatMap(Effect.service(reference), (generation) =>
      Effect.try({
        try: () => wire.body(provider, options, stream, generation),
        // a tool's or an answer's schema that has no JSON Schema
        catch: (error) =>
          AiError.make({
            module: wire.module,
            method,
            reason: new AiError.UnsupportedSchemaError({ description: Failure.said(String(error)) })
          })
      }).pipe(
        Effect.flatMap((body) =>
          client.execute(HttpClientRequest.post(url, { headers }).pipe(HttpClientRequest.bodyJsonUnsafe(body)))
        ),
        Effect.mapError((error) => AiError.isAiError(error) ? error : transport(wire, method)(error)),
        Effect.flatMap((response) =>
          response.status >= 200 && response.status < 300
            ? Effect.succeed(response)
            : Effect.flatMap(
              headOf(response),
              (head) =>
                Effect.flip(
                  refused(
                    wire,
                    options,
                    method,
                    { status: response.status, headers: headersOf(response), ...head },
                    url
                  )
                )
            )
        )
      ))

  const generateText = (provider: LanguageModel.ProviderOptions) =>
    send(provider, false, "generateText").pipe(
      Effect.flatMap((response) =>
        Effect.mapError(response.json, (error) =>
          AiError.make({
            module: wire.module,
            method: "generateText",
            reason: new AiError.InvalidResponseError({ description: Failure.said(String(error)) })
          }))
      ),
      Effect.map((body) => wire.parts(body, provider))
    )

  const streamText = (
    provider: LanguageModel.ProviderOptions
  ): Stream.Stream<Response.StreamPartEncoded, AiError.AiError> =>
    Stream.unwrap(Effect.map(send(provider, true, "streamText"), (response) => {
      const reader = wire.reader(provider)
      let done = false
      const events = response.stream.pipe(
        Stream.mapError(transport(wire, "streamText")),
        Stream.decodeText(),
        Stream.pipeThroughChannel(Sse.decode()),
        Stream.mapError((error) =>
          AiError.isAiError(error)
            ? error
            : lost(wire, options, "streamText", `the stream could not be read: ${String(error)}`)
        )
      )
      // a chunk at a time: the events one read brought, as the parts they make
      const steps = spread(events, (chunk) => {
        const out: Array<ReturnType<typeof reader.read>> = []
        for (const event of chunk) {
          const step = reader.read(event)
          if (step.error !== undefined) {
            return {
              out,
              failure: Effect.flip(refused(wire, options, "streamText", { headers: {}, body: step.error }, url))
            }
          }
          if (step.done === true) done = true
          out.push(step)
        }
        return { out }
      })
      // read past the end marker to the body's end, so the connection is kept (cut short, it is closed)
      return spread(toEnd(steps, (step) => step.done === true, "1 second"), (chunk) => ({
        out: chunk.flatMap((step) => step.parts)
      })).pipe(
        Stream.concat(Stream.suspend(() =>
          done
            ? Stream.empty
            : reader.ended?.() !== undefined
            ? Stream.fromArray(reader.ended()!)
            : Stream.fail(lost(wire, options, "streamText", "the stream ended before the answer did"))
        ))
      )
    }))

  const model = yield* LanguageModel.make({ generateText, streamText })
  owned.set(model, { generateText, streamText })
  return model
})

/** @internal */
export const layer = (wire: Wire, options: Options) => Layer.effect(LanguageModel.LanguageModel, make(wire, options))
