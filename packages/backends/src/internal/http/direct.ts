/**
 * The transport straight to an undici dispatcher, past the HttpClient, with undici's handler (no
 * Readable body, no AbortSignal, no URL parsed a request): the pieces of the body are held as they
 * come (undici paused past a few dozen) and handed out as the reader asks. The HttpClient's own
 * path costs about as much again as undici does a request.
 */
import type * as Failure from "@fallback/core/Failure"
import * as Effect from "effect/Effect"
import * as HttpTraceContext from "effect/http/HttpTraceContext"
import type * as Scope from "effect/Scope"
import type * as Tracer from "effect/Tracer"
import { cut, lost, notAUrl } from "./answer.js"
import type { Call, Response, Transport } from "./response.js"
import { exported, headerAttributes, spanName } from "./tracing.js"

/**
 * What an HTTP provider asks of an undici dispatcher: `dispatch` with undici 7's handler (the
 * controller that aborts, the response's start, data, end and error). An `Agent` or `Pool` of
 * `undici` (or the one `NodeHttpClient.layerUndici` runs on) has it.
 *
 * @internal
 */
export interface Dispatcher {
  dispatch(options: {
    readonly origin: string
    readonly path: string
    readonly method: "GET" | "POST"
    readonly headers: Record<string, string>
    readonly body?: string
    readonly headersTimeout: number
    readonly bodyTimeout: number
  }, handler: Handler): boolean
}

/** @internal */
export interface Controller {
  abort(reason: Error): void
  pause(): void
  resume(): void
}

type RawHeaders = Readonly<Record<string, string | ReadonlyArray<string> | undefined>>

/** @internal */
export interface Handler {
  onRequestStart?(controller: Controller, context: unknown): void
  onResponseStart?(controller: Controller, statusCode: number, headers: RawHeaders, statusMessage?: string): void
  onResponseData?(controller: Controller, chunk: Uint8Array): void
  onResponseEnd?(controller: Controller, trailers: unknown): void
  onResponseError?(controller: Controller, error: Error): void
}

/** Response headers as the HttpClient gives them: names in lower case, repeated values joined. */
const flatHeaders = (headers: RawHeaders): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const name in headers) {
    const value = headers[name]
    if (value !== undefined) out[name.toLowerCase()] = typeof value === "string" ? value : value.join(", ")
  }
  return out
}

/** Where a request goes, split as undici takes it; none when the URL does not parse. */
const target = (url: string): { readonly origin: string; readonly path: string } | undefined => {
  try {
    const parsed = new URL(url)
    return { origin: parsed.origin, path: parsed.pathname + parsed.search }
  } catch {
    return undefined
  }
}

/** The reason a request is aborted with, once nobody reads its response. */
const abandoned = new Error("the response was let go (a limit, or the caller let it go)")

/** Pieces held before undici is asked to pause the body: a reader slower than the socket. */
const held = 64

/** One request and what of its response came so far. */
class Exchange implements Response {
  status = 0
  headers: Readonly<Record<string, string>> = {}
  private controller: Controller | undefined
  private paused = false
  private pieces: Array<Uint8Array> = []
  private ended = false
  private failed: Error | undefined
  private finished = false
  private draining = false
  private waiting: (() => void) | undefined

  constructor(
    dispatcher: Dispatcher,
    private readonly call: Call,
    to: { readonly origin: string; readonly path: string }
  ) {
    // undici's own timeouts as the HttpClient's undici client sets them: the limits are the Deadline's.
    const request = { origin: to.origin, path: to.path, method: call.method, headersTimeout: 3_600_000, bodyTimeout: 0 }
    dispatcher.dispatch(
      call.body === undefined
        ? { ...request, headers: { ...call.headers } }
        : { ...request, headers: { "content-type": "application/json", ...call.headers }, body: call.body },
      {
        onRequestStart: (controller) => {
          this.controller = controller
          if (this.finished) controller.abort(abandoned)
        },
        onResponseStart: (_, status, headers) => {
          if (status < 200) return
          this.status = status
          this.headers = flatHeaders(headers)
          this.wake()
        },
        onResponseData: (controller, chunk) => {
          if (this.finished) return
          this.pieces.push(chunk)
          if (this.pieces.length >= held && !this.paused) {
            this.paused = true
            controller.pause()
          }
          this.wake()
        },
        onResponseEnd: () => {
          this.ended = true
          this.wake()
        },
        onResponseError: (_, error) => {
          this.failed = error
          this.wake()
        }
      }
    )
  }

  private wake() {
    const waiter = this.waiting
    this.waiting = undefined
    waiter?.()
  }

  /** Waits until `ready` holds. */
  private until(ready: () => boolean): Effect.Effect<void> {
    return ready() ? Effect.void : Effect.callback<void>((resume) => {
      const check = () => {
        if (!ready()) return void (this.waiting = check)
        resume(Effect.void)
      }
      this.waiting = check
      return Effect.sync(() => {
        this.waiting = undefined
      })
    })
  }

  /** The response once its status and headers came. */
  started(): Effect.Effect<Response, Failure.Failure> {
    return Effect.flatMap(
      this.until(() => this.status !== 0 || this.failed !== undefined || this.ended),
      () =>
        this.status === 0
          ? Effect.fail(lost(this.call.place, `could not reach ${this.call.url}`, this.failed))
          : Effect.succeed(this)
    )
  }

  readonly next: Response["next"] = Effect.suspend(() =>
    Effect.flatMap(this.until(() => this.pieces.length > 0 || this.ended || this.failed !== undefined), () => {
      if (this.pieces.length > 0) {
        const pieces = this.pieces
        this.pieces = []
        if (this.paused) {
          this.paused = false
          this.controller?.resume()
        }
        return Effect.succeed(pieces)
      }
      return this.failed === undefined ? Effect.succeed(undefined) : Effect.fail(cut(this.call.place, this.failed))
    })
  )

  drain = () => {
    this.draining = true
  }

  /** The scope ended: a request whose body has not ended drains (where the answer said so) or is aborted. */
  release() {
    this.finished = true
    this.waiting = undefined
    this.pieces = []
    if (this.ended || this.failed !== undefined) return
    if (this.draining) {
      if (this.paused) this.controller?.resume()
    } else {
      this.controller?.abort(abandoned)
    }
  }
}

/** The exchange, alive for the scope, its trace headers sent on where it is a span. */
const exchange = (
  dispatcher: Dispatcher,
  call: Call,
  to: { readonly origin: string; readonly path: string },
  span: Tracer.Span | undefined
) =>
  Effect.acquireRelease(
    Effect.sync(() =>
      new Exchange(
        dispatcher,
        span === undefined ? call : { ...call, headers: { ...call.headers, ...HttpTraceContext.toHeaders(span) } },
        to
      )
    ),
    (made) => Effect.sync(() => made.release())
  ).pipe(Effect.flatMap((made) => made.started()))

/**
 * Sends to `dispatcher`.
 *
 * @internal
 */
export const transport = (dispatcher: Dispatcher): Transport => ({
  send: (call): Effect.Effect<Response, Failure.Failure, Scope.Scope> => {
    const to = target(call.url)
    if (to === undefined) return Effect.fail(notAUrl(call.place, call.url))
    return Effect.withFiber((fiber) => {
      if (!exported(fiber)) return exchange(dispatcher, call, to, undefined)
      return Effect.flatMap(Effect.makeSpanScoped(spanName(call.method), { kind: "client" }), (span) => {
        span.attribute("http.request.method", call.method)
        span.attribute("url.full", call.url)
        headerAttributes(span, "request", call.headers, fiber)
        return Effect.tap(exchange(dispatcher, call, to, span), (response) =>
          Effect.sync(() => {
            span.attribute("http.response.status_code", response.status)
            headerAttributes(span, "response", response.headers, fiber)
          }))
      })
    })
  }
})
