/**
 * An answer's body turned into events, the same way whether it is read as it arrives (a turn's
 * stream) or whole (a reply): the SSE parser, the wire's reading of each event, and the failure an
 * error inside the stream or an unfinished stream is.
 */
import * as Backend from "@fallback/core/Backend"
import * as Classify from "@fallback/core/Classify"
import * as Failure from "@fallback/core/Failure"
import * as Notice from "@fallback/core/Notice"
import type * as Place from "@fallback/core/Place"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { longestEvent, type SseEvent, SseParser } from "./sse.js"
import { parseData, readEvents, type Reading, type Wire } from "./wire.js"

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
 * The failure a request to a URL that does not parse is (either transport).
 *
 * @internal
 */
export const notAUrl = (place: Place.Place, url: string): Failure.Failure =>
  new Failure.Unknown({ place, said: Failure.said(`the provider's URL does not parse: ${url}`) })

/**
 * The failure a body cut in the middle is.
 *
 * @internal
 */
export const cut = (place: Place.Place, error: unknown): Failure.Failure =>
  lost(place, "the connection closed in the middle of the answer", error)

/**
 * The failure an event too long to hold is.
 *
 * @internal
 */
export const overlong = (place: Place.Place): Failure.Failure =>
  new Failure.Unknown({
    place,
    said: Failure.said(
      `an event of the answer's stream ran past ${longestEvent / 1024 / 1024} MiB without ending; the rest was not read`
    )
  })

/**
 * One answer being read: text goes in, with `more`; the events it completes come out; `end` says
 * what the body's end means. Until an event the wire can read comes, the body's head is kept: a
 * body that was no stream of events (an error as JSON, an HTML page) is judged by its words.
 *
 * @internal
 */
export class Answer {
  private readonly reading: Reading = {
    text: "",
    input: 0,
    output: 0,
    model: undefined,
    finished: false,
    skipped: 0,
    strays: ""
  }
  private readonly parser = new SseParser()
  /** Whether an event of JSON came: the body is a stream of events, and its head is not kept. */
  private understood = false
  private head = ""
  private headCut = false
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
    const events = this.parser.feed(text)
    if (!this.understood) this.heard(text, events)
    const progress = readEvents(this.wire, this.reading, events, out)
    if (progress === "more" && this.parser.overflowed) {
      this.over = true
      return Effect.fail(overlong(this.place))
    }
    if (progress === "more") return Effect.void
    this.over = true
    if (progress === "done") return this.finish(out)
    return Effect.flatMap(
      Clock.currentTimeMillis,
      (now) => Effect.fail(Classify.classify({ headers: {}, body: progress.error }, this.place, now))
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
      return Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.fail(this.unfinished(now)))
    }
    return this.finish(out)
  }

  /** The Result, added to `out`; a notice first where events that were no JSON were skipped. */
  private finish(out: Array<Backend.Event>): Effect.Effect<void> {
    out.push(this.result())
    const skipped = this.reading.skipped
    if (skipped === 0) return Effect.void
    const place = this.place
    return Effect.gen(function*() {
      const notices = yield* Notice.Notices
      yield* notices.publish(Notice.Notice.Malformed({ place, skipped }))
    })
  }

  /** Whether the answer ended by an event too long to hold: its body is let go, not drained. */
  get overflowed(): boolean {
    return this.parser.overflowed
  }

  /** Keeps the body's head until an event of JSON comes. */
  private heard(text: string, events: ReadonlyArray<SseEvent>): void {
    if (events.some((event) => parseData(event.data) !== undefined)) {
      this.understood = true
      this.head = ""
      return
    }
    const room = Classify.longestRefusal - this.head.length
    if (text.length > room) this.headCut = true
    if (room > 0) this.head += text.slice(0, room)
  }

  /**
   * A body that ended before the answer did: what its words say where it was no stream of events
   * (a 200 carrying an error, an HTML page), or where it was and some of its events were no JSON
   * ("the server is overloaded" as plain text), and they name a kind; else ConnectionLost, quoting it.
   */
  private unfinished(now: number): Failure.Failure {
    const said = this.understood ? this.reading.strays.trim() : this.head.trim()
    if (said !== "") {
      const judged = Classify.classify({ headers: {}, body: said, cut: this.headCut }, this.place, now)
      if (judged._tag !== "Unknown") return judged
    }
    const ended = "the stream ended before the answer was finished"
    return said === ""
      ? lost(this.place, ended, undefined)
      : new Failure.ConnectionLost({ place: this.place, said: Failure.said(`${ended}; it said: ${said}`) })
  }

  private result(): Backend.Event {
    const reading = this.reading
    return Backend.Event.Result({
      text: reading.text,
      usage: {
        input: reading.input || Backend.tokens(this.prompt),
        output: reading.output || Math.ceil(reading.text.length / 4)
      },
      ...(reading.model === undefined ? {} : { model: reading.model })
    })
  }
}
