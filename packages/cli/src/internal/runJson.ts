import type * as Backend from "@fallback/core/Backend"
import * as Failure from "@fallback/core/Failure"
import * as Notice from "@fallback/core/Notice"
import * as Place from "@fallback/core/Place"
import * as Duration from "effect/Duration"
import * as Schema from "effect/Schema"

const Usage = Schema.Struct({ input: Schema.Number, output: Schema.Number })

const Move = Schema.Struct({
  from: Schema.String,
  to: Schema.String,
  by: Schema.Literals(["account", "place"]),
  kind: Schema.Literals(Failure.kinds)
})

/** @internal */
export type Move = typeof Move.Type

/**
 * One line `fallback run --json` writes on stdout. Every line is one JSON object with a `type`:
 *
 * - `session`: the CLI started (or resumed) a conversation; `id` is what `--session` takes
 * - `text`: a piece of the answer
 * - `tool`: the agent used a tool
 * - `result`: the CLI's whole answer and its token usage
 * - `moved`: the turn was picked up at another place (`by` account or place), in the answer's own
 *   stream, with the `kind` of failure that moved it
 * - `notice`: what recovery did (`notice` is Retrying, Moving, Skipping, Compacting, Probing,
 *   Stalled, Fresh, Malformed, Sharing or Stopping; `message` the sentence the terminal shows;
 *   `place` and `kind` the place and failure kind when there are ones; `skipped`, how many
 *   malformed events a Malformed answer skipped)
 * - `outcome`: the last line: `ok`, the exit `status`, the `place` that answered (and the `model`
 *   its provider said answered, with the `usage`), or the failure `kind` and `message`; and every
 *   `moves` the turn made on its way there (`from`, `to`, `by`, `kind`), oldest first
 *
 * @internal
 */
export const Line = Schema.Union([
  Schema.Struct({ type: Schema.Literal("session"), id: Schema.String }),
  Schema.Struct({ type: Schema.Literal("thinking"), text: Schema.String }),
  Schema.Struct({ type: Schema.Literal("text"), text: Schema.String }),
  Schema.Struct({ type: Schema.Literal("tool"), name: Schema.String, input: Schema.Unknown }),
  Schema.Struct({
    type: Schema.Literal("result"),
    text: Schema.String,
    usage: Usage
  }),
  Schema.Struct({ type: Schema.Literal("moved"), ...Move.fields }),
  Schema.Struct({
    type: Schema.Literal("notice"),
    notice: Schema.Literals([
      "Retrying",
      "Moving",
      "Skipping",
      "Compacting",
      "Probing",
      "Stalled",
      "Fresh",
      "Malformed",
      "Stopping",
      "Sharing"
    ]),
    message: Schema.String,
    place: Schema.optional(Schema.String),
    kind: Schema.optional(Schema.Literals(Failure.kinds)),
    to: Schema.optional(Schema.String),
    waitSeconds: Schema.optional(Schema.Number),
    skipped: Schema.optional(Schema.Number)
  }),
  Schema.Struct({
    type: Schema.Literal("outcome"),
    ok: Schema.Boolean,
    status: Schema.Int,
    place: Schema.String,
    model: Schema.optional(Schema.String),
    usage: Schema.optional(Usage),
    moves: Schema.Array(Move),
    kind: Schema.optional(Schema.Literals(Failure.kinds)),
    message: Schema.optional(Schema.String)
  })
])

/** @internal */
export type Line = typeof Line.Type

/** @internal */
export const moveOf = (event: Extract<Backend.Event, { readonly _tag: "Moved" }>): Move => ({
  from: Place.format(event.from),
  to: Place.format(event.to),
  by: event.by,
  kind: event.failure._tag
})

/** @internal */
export const ofEvent = (event: Backend.Event): Line => {
  switch (event._tag) {
    case "SessionStarted":
      return { type: "session", id: event.sessionId }
    case "Thinking":
      return { type: "thinking", text: event.text }
    case "Text":
      return { type: "text", text: event.text }
    case "ToolUse":
      return { type: "tool", name: event.name, input: event.input }
    case "Result":
      return { type: "result", text: event.text, usage: { input: event.usage.input, output: event.usage.output } }
    case "Moved":
      return { type: "moved", ...moveOf(event) }
  }
}

/** @internal */
export const ofNotice = (notice: Notice.Notice): Line => {
  const message = Notice.format(notice)
  switch (notice._tag) {
    case "Retrying":
      return {
        type: "notice",
        notice: notice._tag,
        message,
        place: Place.format(notice.place),
        kind: notice.failure._tag,
        waitSeconds: Duration.toSeconds(notice.wait)
      }
    case "Moving":
      return {
        type: "notice",
        notice: notice._tag,
        message,
        place: Place.format(notice.from),
        kind: notice.failure._tag,
        to: Place.format(notice.to)
      }
    case "Skipping":
      return { type: "notice", notice: notice._tag, message, place: Place.format(notice.place) }
    case "Malformed":
      return {
        type: "notice",
        notice: notice._tag,
        message,
        place: Place.format(notice.place),
        skipped: notice.skipped
      }
    case "Probing":
    case "Stalled":
    case "Fresh":
      return { type: "notice", notice: notice._tag, message, place: Place.format(notice.place) }
    case "Sharing":
      return { type: "notice", notice: notice._tag, message }
    case "Compacting":
    case "Stopping":
      return {
        type: "notice",
        notice: notice._tag,
        message,
        place: Place.format(notice.place),
        kind: notice.failure._tag
      }
  }
}

/** @internal */
export const write = (line: Line): string => JSON.stringify(line)
