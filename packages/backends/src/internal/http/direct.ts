/**
 * Requests sent straight to an undici dispatcher, past the HttpClient, with undici's handler (no
 * Readable body, no AbortSignal). A reply: one request, the body read once as text, and one timer
 * for both limits, all inside one `Effect.async` (no fiber, no scope). A turn's stream: the body's
 * pieces read as they come, one timer for `idle` while the stream waits for one.
 * The HttpClient's own path costs about as much again as undici does a request (an abort
 * controller and a finalization registry entry a response, the URL parsed, a cached effect run
 * to read the body), which is what keeps a provider under half of undici's throughput.
 */
import type { Backend, Failure, Place } from "@fallback/core"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { cut, lost, overlong } from "./httpAnswer.js"
import { Head } from "./httpFailure.js"
import { LineRun } from "./httpSse.js"

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
  pause(): void
  resume(): void
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

/**
 * A provider's request, as a reply and a streamed turn both send it.
 *
 * @internal
 */
export interface Request {
  readonly dispatcher: Dispatcher
  readonly origin: string
  readonly path: string
  /** The URL as failures name it. */
  readonly url: string
  readonly headers: Record<string, string>
  readonly body: string
  readonly place: Place.Place
}

/** The request POSTed to its dispatcher. */
const post = (request: Request, handler: Handler) =>
  request.dispatcher.dispatch({
    origin: request.origin,
    path: request.path,
    method: "POST",
    headers: request.headers,
    body: request.body
  }, handler)

/** @internal */
export interface Sent extends Request {
  /** When the request is sent, and its two limits, in epoch millis. */
  readonly sent: number
  readonly by: number
  readonly whole: number
  readonly timeout: (phase: "first-byte" | "whole-send", after: number) => Failure.Failure
  /** The events (or the failure) a 2xx response that came whole is. */
  readonly answer: (body: string) => Effect.Effect<ReadonlyArray<Backend.Event>, Failure.Failure>
  /** The failure a response that is not 2xx is, from its status, headers and its body's head. */
  readonly refused: (
    status: number,
    headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>,
    head: Head
  ) => Effect.Effect<never, Failure.Failure>
}

/** The longest wait a platform timer holds (about 24.8 days); Node fires a longer one after 1 ms. */
const longest = 2_147_483_647

/**
 * A platform timer that calls `run` at `at` (epoch millis), however far off: a wait longer than a
 * timer holds is taken in steps. `cancel` stops it.
 *
 * @internal
 */
export const at = (when: number, run: () => void): { cancel: () => void } => {
  let timer: ReturnType<typeof setTimeout>
  const step = () => {
    const left = when - Date.now()
    timer = left > longest ? setTimeout(step, longest) : setTimeout(run, Math.max(0, left))
  }
  step()
  return { cancel: () => clearTimeout(timer) }
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
    const head = new Head()
    const run = new LineRun()
    let timer: { cancel: () => void } | undefined
    const end = () => {
      done = true
      timer?.cancel()
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
    const arm = (when: number) => {
      timer?.cancel()
      timer = Number.isFinite(when) ? at(when, fire) : undefined
    }
    arm(Math.min(by, whole))
    post(sent, {
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
        if (done) return
        if (status < 300) {
          chunks.push(chunk)
          if (run.add(chunk)) return
          // A line too long to hold: the rest is not read.
          finish(Effect.fail(overlong(sent.place)))
          return void controller?.abort(abandoned)
        }
        // A refusal's body: its head, and the request let go past it.
        if (!head.add(chunk).cut) return
        finish(sent.refused(status, headers, head))
        controller?.abort(abandoned)
      },
      onResponseEnd: () => {
        if (done) return
        finish(
          status < 300 ? sent.answer(Buffer.concat(chunks).toString("utf8")) : sent.refused(status, headers, head)
        )
      },
      onResponseError: (_, error) => {
        if (done) return
        finish(
          status === 0
            ? Effect.fail(lost(sent.place, `could not reach ${sent.url}`, error))
            : status < 300
            ? Effect.fail(cut(sent.place, error))
            : sent.refused(status, headers, head)
        )
      }
    })
    return Effect.sync(() => {
      if (done) return
      end()
      controller?.abort(abandoned)
    })
  })

/** What a streamed request sends, and how its events are read from the body as it comes. */
export interface Streamed extends Request {
  /** The longest the body may go without a byte once the response started, in millis. */
  readonly idle: number
  readonly stalled: () => Failure.Failure
  /** The provider's own limit for the response to start, in millis from sending (Infinity: none). */
  readonly firstByte: number
  readonly late: () => Failure.Failure
  /** The session's event, sent first once a 2xx response starts. */
  readonly started: Backend.Event
  /** Reads the next text of the body, adding the events it completes to `out`. */
  readonly more: (text: string, out: Array<Backend.Event>) => Effect.Effect<void, Failure.Failure>
  /** The body ended: the events that means, or the failure. */
  readonly end: (out: Array<Backend.Event>) => Effect.Effect<void, Failure.Failure>
  /** Whether the answer has ended (finished or failed): nothing after it is read. */
  readonly over: () => boolean
  /** Whether the rest of a body whose answer ended may be drained, keeping the connection (not past an event too long). */
  readonly drains: () => boolean
  /** The failure a response that is not 2xx is, from its status, headers and its body's head. */
  readonly refused: (
    status: number,
    headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>,
    head: Head
  ) => Effect.Effect<never, Failure.Failure>
}

/** Pieces held before undici is asked to pause the body: a reader slower than the socket. */
const held = 64

/**
 * A turn's stream sent straight to undici: the request goes when the stream is first pulled; the
 * session once a 2xx response starts (no limit before it: the engine's first byte owns it); then
 * the body's events as each piece completes them, Unresponsive when the body sends nothing for
 * `idle` while the stream waits for it. Pieces that come while nobody pulls are held (undici is
 * paused past a few dozen). The request is aborted when the stream ends before the body does.
 *
 * @internal
 */
export const stream = (sent: Streamed): Stream.Stream<Backend.Event, Failure.Failure> =>
  Stream.suspend(() => {
    let controller: Controller | undefined
    let paused = false
    let status = 0
    let headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>> = {}
    let pieces: Array<Uint8Array> = []
    const head = new Head()
    let ended = false
    let failed: Error | undefined
    let finished = false
    let waiting: (() => void) | undefined
    let sentYet = false
    let startBy = Infinity
    let emittedStart = false
    const decoder = new TextDecoder()
    const wake = () => {
      const waiter = waiting
      waiting = undefined
      waiter?.()
    }
    const send = () => {
      sentYet = true
      post(sent, {
        onRequestStart: (started) => {
          controller = started
          if (finished) started.abort(abandoned)
        },
        onResponseStart: (_, statusCode, responseHeaders) => {
          if (statusCode < 200) return
          status = statusCode
          headers = responseHeaders
          wake()
        },
        onResponseData: (started, chunk) => {
          if (finished) return
          if (status >= 300) {
            // A refusal's body: its head, and the request let go past it.
            if (head.add(chunk).cut && !ended) {
              ended = true
              started.abort(abandoned)
              wake()
            }
            return
          }
          pieces.push(chunk)
          if (pieces.length >= held && !paused) {
            paused = true
            started.pause()
          }
          wake()
        },
        onResponseEnd: () => {
          ended = true
          wake()
        },
        onResponseError: (_, error) => {
          if (head.cut) return
          failed = error
          wake()
        }
      })
    }
    /**
     * Waits until `ready` holds, failing with `limit`'s failure at its time (epoch millis), the
     * request aborted.
     */
    const until = (
      ready: () => boolean,
      limit?: { readonly at: number; readonly failure: () => Failure.Failure }
    ): Effect.Effect<void, Failure.Failure> =>
      ready()
        ? Effect.void
        : Effect.async<void, Failure.Failure>((resume) => {
          let timer: { cancel: () => void } | undefined
          const check = () => {
            if (!ready()) return void (waiting = check)
            timer?.cancel()
            resume(Effect.void)
          }
          waiting = check
          if (limit !== undefined && Number.isFinite(limit.at)) {
            timer = at(limit.at, () => {
              waiting = undefined
              resume(Effect.fail(limit.failure()))
            })
          }
          return Effect.sync(() => {
            waiting = undefined
            timer?.cancel()
          })
        })
    const some = (out: Array<Backend.Event>) => Chunk.unsafeFromArray(out)
    const next: Effect.Effect<Chunk.Chunk<Backend.Event>, Option.Option<Failure.Failure>> = Effect.suspend(() => {
      if (!sentYet) {
        send()
        startBy = Date.now() + sent.firstByte
      }
      if (!emittedStart) {
        return until(() => status !== 0 || failed !== undefined || ended, { at: startBy, failure: sent.late }).pipe(
          Effect.zipRight(Effect.suspend(() => {
            if (status === 0) {
              return Effect.fail(lost(sent.place, `could not reach ${sent.url}`, failed))
            }
            if (status >= 300) {
              return Effect.flatMap(
                until(() => ended || failed !== undefined),
                () => sent.refused(status, headers, head)
              )
            }
            emittedStart = true
            return Effect.succeed(Chunk.of(sent.started))
          })),
          Effect.mapError(Option.some)
        )
      }
      if (sent.over()) return Effect.fail(Option.none())
      return Effect.flatMap(
        Effect.mapError(
          until(() => pieces.length > 0 || ended || failed !== undefined, {
            at: Date.now() + sent.idle,
            failure: sent.stalled
          }),
          Option.some
        ),
        () => {
          const out: Array<Backend.Event> = []
          if (pieces.length > 0) {
            let read = ""
            for (const piece of pieces) read += decoder.decode(piece, { stream: true })
            pieces = []
            if (paused) {
              paused = false
              controller?.resume()
            }
            return Effect.mapBoth(sent.more(read, out), { onFailure: Option.some, onSuccess: () => some(out) })
          }
          if (failed !== undefined) return Effect.fail(Option.some(cut(sent.place, failed)))
          return Effect.mapBoth(Effect.zipRight(sent.more(decoder.decode(), out), sent.end(out)), {
            onFailure: Option.some,
            onSuccess: () => some(out)
          })
        }
      )
    })
    return Stream.repeatEffectChunkOption(next).pipe(
      Stream.ensuring(Effect.sync(() => {
        finished = true
        waiting = undefined
        pieces = []
        if (ended || failed !== undefined) return
        // An answer that ended before its body lets the rest drain, keeping the connection; a
        // stream let go before that, or past an event too long to hold, aborts the request.
        if (sent.drains()) {
          if (paused) controller?.resume()
        } else {
          controller?.abort(abandoned)
        }
      }))
    )
  })
