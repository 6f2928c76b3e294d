/**
 * Server-sent events read with plain string code: one parser for a body read whole and for a body
 * read as it arrives, so both ways of taking a turn see the same events.
 */

/**
 * One server-sent event: its name (empty when not named) and its data lines joined.
 *
 * @internal
 */
export interface SseEvent {
  readonly event: string
  readonly data: string
}

/**
 * The longest one event (or one line) of a stream may be, in characters: 1 MiB, more than any
 * provider's event holds; past it the parser stops, `overflowed`, instead of holding it all.
 *
 * @internal
 */
export const longestEvent = 1024 * 1024

/**
 * How far a body read whole has gone since its last line break, in bytes: `add` each piece, and
 * stop reading once it says the line is past {@link longestEvent} (the parser would stop there).
 *
 * @internal
 */
export class LineRun {
  private run = 0

  /** Whether the body is still within one line's bound after `chunk`. */
  add(chunk: Uint8Array): boolean {
    let at = chunk.length - 1
    while (at >= 0 && chunk[at] !== 10 && chunk[at] !== 13) at--
    this.run = at === -1 ? this.run + chunk.length : chunk.length - at - 1
    return this.run <= longestEvent
  }
}

/**
 * Reads an SSE body piece by piece: `feed` takes the next text and returns the events it
 * completed. Lines end at CRLF, LF or CR; an event ends at a blank line; comments and fields other
 * than `event` and `data` are skipped; an event the body ends in the middle of is never returned,
 * as the EventSource rules say. A line or an event longer than {@link longestEvent} ends the
 * reading: `overflowed`, and nothing more is read.
 *
 * @internal
 */
export class SseParser {
  private line = ""
  private afterCr = false
  private event = ""
  private data: Array<string> = []
  private size = 0
  /** Whether a line or an event ran past {@link longestEvent}: the events before it were returned, none after. */
  overflowed = false

  /** The events `text` completes, in order. */
  feed(text: string): Array<SseEvent> {
    const done: Array<SseEvent> = []
    if (text === "" || this.overflowed) return done
    let from = 0
    if (this.afterCr && text.charCodeAt(0) === 10) from = 1
    this.afterCr = false
    while (from < text.length) {
      const cr = text.indexOf("\r", from)
      const lf = text.indexOf("\n", from)
      const end = cr === -1 ? lf : lf === -1 ? cr : Math.min(cr, lf)
      if (end === -1) {
        if (this.size + this.line.length + text.length - from > longestEvent) this.overflowed = true
        else this.line += text.slice(from)
        break
      }
      if (this.size + this.line.length + end - from > longestEvent) {
        this.overflowed = true
        break
      }
      const line = this.line === "" ? text.slice(from, end) : this.line + text.slice(from, end)
      this.line = ""
      this.take(line, done)
      if (end === cr && text.charCodeAt(end + 1) === 10) from = end + 2
      else if (end === cr && end + 1 === text.length) {
        this.afterCr = true
        from = end + 1
      } else from = end + 1
    }
    return done
  }

  private take(line: string, done: Array<SseEvent>): void {
    if (line === "") {
      if (this.data.length > 0) done.push({ event: this.event, data: this.data.join("\n") })
      this.event = ""
      this.data = []
      this.size = 0
      return
    }
    if (line.charCodeAt(0) === 58) return
    const colon = line.indexOf(":")
    const name = colon === -1 ? line : line.slice(0, colon)
    let value = colon === -1 ? "" : line.slice(colon + 1)
    if (value.charCodeAt(0) === 32) value = value.slice(1)
    if (name === "data") {
      this.data.push(value)
      this.size += value.length + 1
    } else if (name === "event") this.event = value
  }
}

/**
 * The events of a whole SSE body.
 *
 * @internal
 */
export const parse = (body: string): Array<SseEvent> => new SseParser().feed(body)
