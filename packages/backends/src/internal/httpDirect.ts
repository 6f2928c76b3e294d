/**
 * A reply sent straight to an undici dispatcher, past the HttpClient: one request, the body read
 * once as text, and one timer for both limits, all inside one `Effect.async` (no fiber, no scope).
 * The HttpClient's own path costs about as much again as undici does a request (an abort
 * controller and a finalization registry entry a response, the URL parsed, a cached effect run
 * to read the body), which is what keeps a provider under half of undici's throughput.
 */
import type { Backend, Failure, Place } from "@fallback/core"
import * as Effect from "effect/Effect"
import { cut, lost } from "./httpAnswer.js"

/**
 * What an HTTP provider asks of an undici dispatcher: `dispatch` with undici 7's handler (the
 * controller that aborts, the response's start, data, end and error). An `Agent` or `Pool` of
 * `undici` (or of `@effect/platform-node/Undici`, which `NodeHttpClient.layerUndici` runs on) has it.
 *
 * @internal
 */
export interface Dispatcher {
  dispatch(options: {
    readonly origin: string
    readonly path: string
    readonly method: "POST"
    readonly headers: Record<string, string>
    readonly body: string
  }, handler: Handler): boolean
}

/** @internal */
export interface Controller {
  abort(reason: Error): void
}

/** @internal */
export interface Handler {
  onRequestStart?(controller: Controller, context: unknown): void
  onResponseStart?(
    controller: Controller,
    statusCode: number,
    headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>,
    statusMessage?: string
  ): void
  onResponseData?(controller: Controller, chunk: Uint8Array): void
  onResponseEnd?(controller: Controller, trailers: unknown): void
  onResponseError?(controller: Controller, error: Error): void
}

/**
 * Where a provider's turns go, split as undici takes it; none when the base URL does not parse
 * (the HttpClient's path then says so).
 *
 * @internal
 */
export const target = (url: string): { readonly origin: string; readonly path: string } | undefined => {
  try {
    const parsed = new URL(url)
    return { origin: parsed.origin, path: parsed.pathname + parsed.search }
  } catch {
    return undefined
  }
}

/**
 * Response headers as the HttpClient gives them: names in lower case, repeated values joined.
 *
 * @internal
 */
export const flatHeaders = (
  headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>
): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const name in headers) {
    const value = headers[name]
    if (value !== undefined) out[name.toLowerCase()] = typeof value === "string" ? value : value.join(", ")
  }
  return out
}

/** @internal */
export interface Sent {
  readonly dispatcher: Dispatcher
  readonly origin: string
  readonly path: string
  /** The URL as failures name it. */
  readonly url: string
  readonly headers: Record<string, string>
  readonly body: string
  readonly place: Place.Place
  /** When the request is sent, and its two limits, in epoch millis. */
  readonly sent: number
  readonly by: number
  readonly whole: number
  readonly timeout: (phase: "first-byte" | "whole-send", after: number) => Failure.Failure
  /** The events (or the failure) a response that came whole is. */
  readonly answer: (
    status: number,
    headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>,
    body: string
  ) => Effect.Effect<ReadonlyArray<Backend.Event>, Failure.Failure>
}

/** The reason a reply's request is aborted with, once the reply has ended without it. */
const abandoned = new Error("the reply ended (a limit, or the caller let it go)")

/**
 * The reply: its status and headers by `by`, its whole body by `whole` (one timer, set to the
 * earlier and moved to `whole` when the headers come; on firing it aborts the request). The body
 * is kept as it comes and read as text once at its end. An interruption aborts the request too;
 * a request still waiting for a connection is aborted when it gets one, before it is written.
 *
 * @internal
 */
export const reply = (sent: Sent): Effect.Effect<ReadonlyArray<Backend.Event>, Failure.Failure> =>
  Effect.async((resume) => {
    const { by, whole } = sent
    let done = false
    let controller: Controller | undefined
    let status = 0
    let headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>> = {}
    const chunks: Array<Uint8Array> = []
    let timer: ReturnType<typeof setTimeout> | undefined
    const end = () => {
      done = true
      if (timer !== undefined) clearTimeout(timer)
    }
    const finish = (effect: Effect.Effect<ReadonlyArray<Backend.Event>, Failure.Failure>) => {
      if (done) return
      end()
      resume(effect)
    }
    const fire = () => {
      timer = undefined
      const late = status === 0 && by <= whole ? "first-byte" : "whole-send"
      // Ended first: the abort reports its error to the handler at once, which must not be read.
      finish(Effect.fail(sent.timeout(late, (late === "first-byte" ? by : whole) - sent.sent)))
      controller?.abort(abandoned)
    }
    const arm = (at: number) => {
      if (timer !== undefined) clearTimeout(timer)
      timer = Number.isFinite(at) ? setTimeout(fire, Math.max(0, at - Date.now())) : undefined
    }
    arm(Math.min(by, whole))
    sent.dispatcher.dispatch({
      origin: sent.origin,
      path: sent.path,
      method: "POST",
      headers: sent.headers,
      body: sent.body
    }, {
      onRequestStart: (started) => {
        controller = started
        if (done) started.abort(abandoned)
      },
      onResponseStart: (_, statusCode, responseHeaders) => {
        if (done || statusCode < 200) return
        status = statusCode
        headers = responseHeaders
        if (by < whole) arm(whole)
      },
      onResponseData: (_, chunk) => {
        if (!done) chunks.push(chunk)
      },
      onResponseEnd: () => {
        if (done) return
        finish(sent.answer(status, headers, Buffer.concat(chunks).toString("utf8")))
      },
      onResponseError: (_, error) => {
        if (done) return
        finish(
          status === 0
            ? Effect.fail(lost(sent.place, `could not reach ${sent.url}`, error))
            : status < 300
            ? Effect.fail(cut(sent.place, error))
            : sent.answer(status, headers, "")
        )
      }
    })
    return Effect.sync(() => {
      if (done) return
      end()
      controller?.abort(abandoned)
    })
  })
