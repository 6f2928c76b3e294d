/**
 * A provider's response as both transports give it (the HttpClient's, undici's own), and the one
 * reader of its body: a refusal's head, a reply's whole body, a turn's events as the body comes.
 */
import * as Backend from "@fallback/core/Backend"
import * as Classify from "@fallback/core/Classify"
import * as Deadline from "@fallback/core/Deadline"
import type * as Failure from "@fallback/core/Failure"
import type * as Place from "@fallback/core/Place"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { type Answer, overlong } from "./answer.js"
import { LineRun } from "./sse.js"

const isContent = Backend.isContent

/**
 * A request as a provider sends it: `body` is JSON; none for a GET.
 *
 * @internal
 */
export interface Call {
  readonly method: "GET" | "POST"
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body?: string | undefined
  readonly place: Place.Place
  /** The request continues an answer (a prefill): a 400 to it is read as the continuation refused. */
  readonly continued?: boolean | undefined
}

/**
 * A response whose status and headers came. `next` reads the body's next pieces (none once it
 * ended; a body cut in the middle fails as ConnectionLost). `drain` says the answer ended before
 * the body did: its rest may be read and dropped, keeping the connection, where the scope's end
 * would let the request go.
 *
 * @internal
 */
export interface Response {
  readonly status: number
  /** Names in lower case, repeated values joined. */
  readonly headers: Readonly<Record<string, string>>
  readonly next: Effect.Effect<ReadonlyArray<Uint8Array> | undefined, Failure.Failure>
  readonly drain: () => void
}

/**
 * How requests are sent: the response once its status and headers came, the request alive as long
 * as the scope is (its end lets a request whose body is not read go). A connection that cannot be
 * made is ConnectionLost.
 *
 * @internal
 */
export interface Transport {
  readonly send: (call: Call) => Effect.Effect<Response, Failure.Failure, Scope.Scope>
}

/**
 * The head of a refusal's body as it comes: its first `Classify.longestRefusal` bytes kept, `cut`
 * once a byte past them came (then nothing more needs reading).
 *
 * @internal
 */
export class Head {
  private readonly parts: Array<Uint8Array> = []
  private size = 0
  cut = false

  /** Keeps what of `chunk` fits; returns the head. */
  add(chunk: Uint8Array): this {
    if (this.cut) return this
    const room = Classify.longestRefusal - this.size
    if (chunk.length > room) this.cut = true
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk
    this.parts.push(kept)
    this.size += kept.length
    return this
  }

  /** The kept bytes as text. */
  text(): string {
    return new TextDecoder().decode(Buffer.concat(this.parts))
  }
}

/**
 * Reads the body's pieces to `take` until it says it has enough (true) or the body ends.
 */
const readWhile = (
  response: Response,
  take: (pieces: ReadonlyArray<Uint8Array>) => boolean
): Effect.Effect<void, Failure.Failure> => {
  const loop: Effect.Effect<void, Failure.Failure> = Effect.flatMap(
    response.next,
    (pieces) => pieces === undefined || take(pieces) ? Effect.void : loop
  )
  return loop
}

/**
 * Whether a response is a 2xx.
 *
 * @internal
 */
export const ok = (response: Response): boolean => response.status >= 200 && response.status < 300

/**
 * The failure a response that is not 2xx is, by its status, headers and its body's head (the rest
 * is never read: the request is let go once a byte past the head comes).
 *
 * @internal
 */
export const refused = (place: Place.Place, response: Response): Effect.Effect<never, Failure.Failure> =>
  Effect.suspend(() => {
    const head = new Head()
    return readWhile(response, (pieces) => {
      for (const piece of pieces) if (head.add(piece).cut) return true
      return false
    }).pipe(
      Effect.ignore,
      Effect.andThen(Clock.currentTimeMillis),
      Effect.flatMap((now) =>
        Effect.fail(
          Classify.classify(
            { status: response.status, headers: response.headers, body: head.text(), cut: head.cut },
            place,
            now
          )
        )
      )
    )
  })

/**
 * A reply's body read whole, as text; an event too long to hold fails as Unknown, the rest not read.
 *
 * @internal
 */
export const whole = (place: Place.Place, response: Response): Effect.Effect<string, Failure.Failure> =>
  Effect.suspend(() => {
    const run = new LineRun()
    const chunks: Array<Uint8Array> = []
    let within = true
    return readWhile(response, (pieces) => {
      for (const piece of pieces) {
        chunks.push(piece)
        within = run.add(piece)
        if (!within) return true
      }
      return false
    }).pipe(
      Effect.flatMap(() =>
        within ? Effect.succeed(Buffer.concat(chunks).toString("utf8")) : Effect.fail(overlong(place))
      )
    )
  })

/**
 * A turn's events as the body arrives: `first` (the session) at once, then the events each piece
 * completes; `stalled` when the body sends nothing for `idle` while the stream waits for it.
 * An answer that ended before its body lets the rest drain, unless it ended past an event too
 * long to hold.
 *
 * @internal
 */
export const events = (
  response: Response,
  answer: Answer,
  first: Backend.Event,
  idle: Duration.Duration,
  stalled: () => Failure.Failure
): Stream.Stream<Backend.Event, Failure.Failure> =>
  Stream.fromPull(Effect.sync(() => {
    const decoder = new TextDecoder()
    let started = false
    const more = (text: string, ended: boolean) =>
      Effect.suspend(() => {
        const out: Array<Backend.Event> = []
        const read = answer.more(text, out)
        return Effect.as(ended ? Effect.andThen(read, answer.end(out)) : read, out)
      })
    const pull: Effect.Effect<readonly [Backend.Event, ...Array<Backend.Event>], Failure.Failure | Cause.Done> = Effect
      .suspend(() => {
        if (!started) {
          started = true
          return Effect.succeed([first] as const)
        }
        if (answer.over) {
          if (!answer.overflowed) response.drain()
          return Cause.done()
        }
        return Deadline.cutAfter(response.next, idle, stalled).pipe(
          Effect.flatMap((pieces) => {
            if (pieces === undefined) return more(decoder.decode(), true)
            let text = ""
            for (const piece of pieces) text += decoder.decode(piece, { stream: true })
            return more(text, false)
          }),
          Effect.flatMap((out) =>
            out.length > 0 ? Effect.succeed(out as [Backend.Event, ...Array<Backend.Event>]) : pull
          )
        )
      })
    return pull
  }))

/**
 * The session's first event and a reply's events, its body read as it comes: `progress` is told
 * when each piece came and once the first content did (opening frames are not content), so the
 * reply's limits see it; the events are handed over together at its end.
 *
 * @internal
 */
export const replied = (
  response: Response,
  answer: Answer,
  first: Backend.Event,
  progress: { began: boolean; last: number }
): Effect.Effect<ReadonlyArray<Backend.Event>, Failure.Failure> =>
  Effect.suspend(() => {
    const decoder = new TextDecoder()
    const out: Array<Backend.Event> = [first]
    const loop: Effect.Effect<ReadonlyArray<Backend.Event>, Failure.Failure> = Effect.flatMap(
      response.next,
      (pieces) => {
        if (pieces === undefined) {
          return Effect.as(Effect.andThen(answer.more(decoder.decode(), out), answer.end(out)), out)
        }
        let text = ""
        for (const piece of pieces) {
          text += decoder.decode(piece, { stream: true })
        }
        return Effect.clockWith((clock) => {
          progress.last = clock.currentTimeMillisUnsafe()
          const had = out.length
          return Effect.flatMap(answer.more(text, out), () => {
            if (!progress.began && out.length > had) progress.began = out.some(isContent)
            if (!answer.over) return loop
            if (!answer.overflowed) response.drain()
            return Effect.succeed(out)
          })
        })
      }
    )
    return loop
  })
