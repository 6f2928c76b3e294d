import { Backend, type ConfigFile, Failure, Place, type Settings } from "@fallback/core"
import * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Clock from "effect/Clock"
import * as Config from "effect/Config"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import { randomUUID } from "node:crypto"
import type { Provider } from "../HttpProvider.js"
import { anthropic } from "./httpAnthropic.js"
import { classify } from "./httpFailure.js"
import { openAi } from "./httpOpenAi.js"
import { events } from "./httpSse.js"
import type { Reading, Wire } from "./httpWire.js"

const wires: Readonly<Record<Provider["kind"], Wire>> = { "anthropic-messages": anthropic, "openai-compatible": openAi }

/** The system error code somewhere down an error's causes (`ECONNREFUSED`, `ECONNRESET`, …). */
const codeOf = (error: unknown): string | undefined => {
  for (let at = error, depth = 0; typeof at === "object" && at !== null && depth < 5; depth++) {
    const code = (at as { code?: unknown }).code
    if (typeof code === "string") return code
    at = (at as { cause?: unknown }).cause
  }
  return undefined
}

const lost = (place: Place.Place, what: string, error: unknown): Failure.Failure =>
  new Failure.ConnectionLost({ place, said: Failure.said(`${what}${codeOf(error) ? ` (${codeOf(error)})` : ""}`) })

const unreached = (place: Place.Place, error: HttpClientError.HttpClientError): Failure.Failure =>
  error._tag === "RequestError" && error.reason === "Transport"
    ? lost(place, `could not reach ${error.request.url}`, error.cause)
    : new Failure.Unknown({ place, said: Failure.said(`${error.reason}: ${error.message}`) })

/** The failure a non-2xx response is, read from its status, headers and body. */
const refused = (place: Place.Place, response: HttpClientResponse.HttpClientResponse) =>
  Effect.flatMap(
    Effect.all([response.text.pipe(Effect.orElseSucceed(() => "")), Clock.currentTimeMillis]),
    ([body, now]) => Effect.fail(classify({ status: response.status, headers: response.headers, body }, place, now))
  )

/**
 * The variable a provider's key is read from for an account: the account's own reference when it
 * names the provider's key variable, else the provider's.
 */
const keySource = (
  provider: Provider,
  account: Option.Option<ConfigFile.Account>
): Option.Option<{ readonly variable: string } | { readonly value: string }> => {
  if (provider.key === undefined) return Option.none()
  const variable = provider.key.fromEnv
  const own = Option.flatMap(account, (found) => Option.fromNullable(found.env?.[variable]))
  return Option.some(Option.match(own, {
    onNone: () => ({ variable }),
    onSome: (value) => typeof value === "string" ? { value } : { variable: value.fromEnv }
  }))
}

const readKey = (
  place: Place.Place,
  source: Option.Option<{ readonly variable: string } | { readonly value: string }>
): Effect.Effect<Option.Option<Redacted.Redacted>, Failure.Failure> =>
  Option.match(source, {
    onNone: () => Effect.succeed(Option.none()),
    onSome: (found) =>
      "value" in found
        ? Effect.succeed(Option.some(Redacted.make(found.value)))
        : Config.redacted(found.variable).pipe(
          Effect.map(Option.some),
          Effect.mapError(() =>
            new Failure.AuthRefused({ place, said: Failure.said(`no key: the variable ${found.variable} is not set`) })
          )
        )
  })

/** @internal */
export const make = (
  provider: Provider,
  options: { readonly idle: Duration.Duration }
): Effect.Effect<Backend.Backend, never, HttpClient.HttpClient> =>
  Effect.map(HttpClient.HttpClient, (client): Backend.Backend => {
    const wire = wires[provider.kind]
    const base = provider.baseUrl.replace(/\/+$/, "")
    const scoped = HttpClient.withScope(client)
    const sources = new Map<string, Option.Option<{ readonly variable: string } | { readonly value: string }>>()

    const answer = (
      place: Place.Place,
      prompt: Backend.Prompt,
      response: HttpClientResponse.HttpClientResponse
    ): Stream.Stream<Backend.Event, Failure.Failure> =>
      Stream.suspend(() => {
        const reading: Reading = { text: "", input: 0, output: 0, finished: false }
        const body = response.stream.pipe(
          Stream.mapError((error) => lost(place, "the connection closed in the middle of the answer", error.cause)),
          Stream.timeoutFail(
            () =>
              new Failure.Unresponsive({
                place,
                said: Failure.said(`the answer's stream sent nothing for ${Duration.format(options.idle)}`)
              }),
            options.idle
          )
        )
        const text = events(body).pipe(
          Stream.map((event) => wire.read(reading, event)),
          Stream.takeUntil((step) => step.done || step.error !== undefined),
          Stream.mapEffect((step) =>
            step.error === undefined
              ? Effect.succeed(step.texts)
              : Effect.flatMap(Clock.currentTimeMillis, (now) =>
                Effect.fail(classify({ headers: {}, body: step.error! }, place, now)))
          ),
          Stream.flattenIterables,
          Stream.map((text) => Backend.Event.Text({ text }))
        )
        const result = Stream.suspend(() =>
          reading.finished
            ? Stream.make(Backend.Event.Result({
              text: reading.text,
              usage: {
                input: reading.input || Backend.tokens(prompt),
                output: reading.output || Math.ceil(reading.text.length / 4)
              }
            }))
            : Stream.fail(lost(place, "the stream ended before the answer was finished", undefined))
        )
        return Stream.concat(text, result)
      })

    return {
      cli: provider.name,
      capabilities: {
        webSearchOff: true,
        callbacks: false,
        resume: true,
        models: provider.models.map((model) => ({ name: model.name, contextWindow: model.contextWindow }))
      },
      open: Effect.fn("HttpProvider.open")(
        function*(
          place: Place.Place,
          account: Option.Option<ConfigFile.Account>,
          _settings: Settings.Settings,
          opening: Backend.Opening
        ) {
          const source = keySource(provider, account)
          const key = yield* readKey(place, source)
          sources.set(Place.format(place), source)
          const id = opening.resume ?? randomUUID()
          return {
            id,
            turn: (prompt) =>
              Stream.unwrapScoped(Effect.gen(function*() {
                const request = HttpClientRequest.post(`${base}${wire.turnPath}`).pipe(
                  HttpClientRequest.setHeaders({ accept: "text/event-stream", ...wire.headers(key) }),
                  HttpClientRequest.bodyUnsafeJson(wire.body(place.model, prompt, provider.maxTokens ?? 4096))
                )
                const response = yield* scoped.execute(request).pipe(
                  Effect.mapError((error) => unreached(place, error))
                )
                if (response.status < 200 || response.status >= 300) return yield* refused(place, response)
                return Stream.concat(
                  Stream.make(Backend.Event.SessionStarted({ sessionId: id })),
                  answer(place, prompt, response)
                )
              }))
          } satisfies Backend.Session
        }
      ),
      check: Effect.fn("HttpProvider.check")(function*(place: Place.Place) {
        const key = yield* readKey(place, sources.get(Place.format(place)) ?? keySource(provider, Option.none()))
        const response = yield* scoped.execute(
          HttpClientRequest.get(`${base}${wire.modelsPath}`).pipe(HttpClientRequest.setHeaders(wire.headers(key)))
        ).pipe(Effect.mapError((error) => unreached(place, error)))
        if (response.status < 200 || response.status >= 300) return yield* refused(place, response)
      }, Effect.scoped)
    }
  })
