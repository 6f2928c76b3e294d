/**
 * An answer's body turned into events, the same way whether it is read as it arrives (a turn's
 * stream) or whole (a reply): the SSE parser, the wire's reading of each event, and the failure an
 * error inside the stream or an unfinished stream is.
 */
import { Backend, Failure, type Place } from "@fallback/core"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { classify } from "./httpFailure.js"
import { SseParser } from "./httpSse.js"
import { readEvents, type Reading, type Wire } from "./httpWire.js"

/** The system error code somewhere down an error's causes (`ECONNREFUSED`, `ECONNRESET`, …). */
const codeOf = (error: unknown): string | undefined => {
  for (let at = error, depth = 0; typeof at === "object" && at !== null && depth < 5; depth++) {
    const code = (at as { code?: unknown }).code
    if (typeof code === "string") return code
    at = (at as { cause?: unknown }).cause
  }
  return undefined
}

/**
 * The socket went away: what was being done, and the system error code where there is one.
 *
 * @internal
 */
export const lost = (place: Place.Place, what: string, error: unknown): Failure.Failure =>
  new Failure.ConnectionLost({ place, said: Failure.said(`${what}${codeOf(error) ? ` (${codeOf(error)})` : ""}`) })

/**
 * The failure a body cut in the middle is.
 *
 * @internal
 */
export const cut = (place: Place.Place, error: unknown): Failure.Failure =>
  lost(place, "the connection closed in the middle of the answer", error)

/**
 * One answer being read: text goes in, with `more`; the events it completes come out; `end` says
 * what the body's end means.
 *
 * @internal
 */
export class Answer {
  private readonly reading: Reading = { text: "", input: 0, output: 0, finished: false }
  private readonly parser = new SseParser()
  /** Whether the answer has ended, finished or failed: nothing after it is read. */
  over = false

  constructor(
    private readonly wire: Wire,
    private readonly place: Place.Place,
    private readonly prompt: Backend.Prompt
  ) {}

  /**
   * Reads `text` and adds the events it completes to `out`: Thinking and Text events, and the Result once the
   * answer says it is finished. Fails with the provider's error inside the stream.
   */
  more(text: string, out: Array<Backend.Event>): Effect.Effect<void, Failure.Failure> {
    if (this.over) return Effect.void
    const progress = readEvents(this.wire, this.reading, this.parser.feed(text), out)
    if (progress === "more") return Effect.void
    this.over = true
    if (progress === "done") {
      out.push(this.result())
      return Effect.void
    }
    return Effect.flatMap(
      Clock.currentTimeMillis,
      (now) => Effect.fail(classify({ headers: {}, body: progress.error }, this.place, now))
    )
  }

  /**
   * The body ended: the Result, added to `out`, when the answer was finished (or already was);
   * ConnectionLost when it ended before the answer did.
   */
  end(out: Array<Backend.Event>): Effect.Effect<void, Failure.Failure> {
    if (this.over) return Effect.void
    this.over = true
    if (!this.reading.finished) {
      return Effect.fail(lost(this.place, "the stream ended before the answer was finished", undefined))
    }
    out.push(this.result())
    return Effect.void
  }

  private result(): Backend.Event {
    const reading = this.reading
    return Backend.Event.Result({
      text: reading.text,
      usage: {
        input: reading.input || Backend.tokens(this.prompt),
        output: reading.output || Math.ceil(reading.text.length / 4)
      }
    })
  }
}
