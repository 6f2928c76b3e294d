import * as Option from "effect/Option"
import * as Stream from "effect/Stream"

/**
 * One server-sent event: its name (empty when not named) and its data lines joined.
 *
 * @internal
 */
export interface SseEvent {
  readonly event: string
  readonly data: string
}

interface Pending {
  readonly event: string
  readonly data: ReadonlyArray<string>
}

const empty: Pending = { event: "", data: [] }

const field = (pending: Pending, line: string): readonly [Pending, Option.Option<SseEvent>] => {
  if (line === "") {
    return pending.data.length === 0
      ? [empty, Option.none()]
      : [empty, Option.some({ event: pending.event, data: pending.data.join("\n") })]
  }
  if (line.startsWith(":")) return [pending, Option.none()]
  const colon = line.indexOf(":")
  const name = colon === -1 ? line : line.slice(0, colon)
  const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "")
  return name === "event"
    ? [{ ...pending, event: value }, Option.none()]
    : name === "data"
    ? [{ ...pending, data: [...pending.data, value] }, Option.none()]
    : [pending, Option.none()]
}

/**
 * The events of an SSE body; an event the body ends in the middle of is dropped, as the
 * EventSource rules say.
 *
 * @internal
 */
export const events = <E, R>(body: Stream.Stream<Uint8Array, E, R>): Stream.Stream<SseEvent, E, R> =>
  body.pipe(
    Stream.decodeText(),
    Stream.splitLines,
    Stream.mapAccum(empty, field),
    Stream.filterMap((event) => event)
  )
