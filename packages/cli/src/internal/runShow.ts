import * as Agent from "@fallback/core/Agent"
import type * as Backend from "@fallback/core/Backend"
import type * as Failure from "@fallback/core/Failure"
import * as Notice from "@fallback/core/Notice"
import * as Place from "@fallback/core/Place"
import * as Console from "effect/Console"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as Terminal from "effect/Terminal"

import * as Countdown from "./countdown.js"
import { CutShort, Unanswered } from "./outcome.js"
import * as RunJson from "./runJson.js"

/**
 * How `fallback run` shows a turn: `json` (one object a line), `quiet` (nothing on stderr about
 * recovery), `whole` (nothing of the answer until the turn has all of it).
 *
 * @internal
 */
export interface Shape {
  readonly json: boolean
  readonly quiet: boolean
  readonly whole: boolean
}

/**
 * What a turn shows as it goes, and what it remembers for its outcome: where it was answered, the
 * session, the usage and model of the result, and every move it made.
 *
 * @internal
 */
export const showing = (shape: Shape, startAt: Place.Place) =>
  Effect.gen(function*() {
    const terminal = yield* Terminal.Terminal
    // stdout closed early (`| head`) leaves the turn to finish rather than failing it
    const show = (text: string) => Effect.ignore(terminal.display(text))
    const line = (line: RunJson.Line) => show(RunJson.write(line) + "\n")
    const onTerminal = !shape.json && !shape.quiet && process.stderr.isTTY === true
    const countdown = onTerminal ? Countdown.on(process.stderr) : Countdown.none
    let answeredAt = startAt
    let sessionId: string | undefined = undefined
    let shown = ""
    let result: Extract<Backend.Event, { readonly _tag: "Result" }> | undefined = undefined
    const moves: Array<RunJson.Move> = []

    const notices: Notice.Channel = {
      publish: (notice) =>
        Effect.gen(function*() {
          if (notice._tag === "Moving") answeredAt = notice.to
          if (shape.json) return yield* line(RunJson.ofNotice(notice))
          if (shape.quiet) return
          yield* countdown.stop
          yield* Console.error(Notice.format(notice))
          if (notice._tag === "Retrying" && !Duration.isZero(notice.wait)) {
            yield* countdown.start(notice.wait, `trying ${Place.format(notice.place)} again`)
          }
        }),
      watch: Effect.succeed(Stream.empty)
    }

    /** One event of the answer: remembered, and shown as it comes unless the turn is whole. */
    const onEvent = (event: Backend.Event): Effect.Effect<void> =>
      Effect.gen(function*() {
        if (event._tag === "SessionStarted") sessionId = event.sessionId
        if (event._tag === "Moved") {
          answeredAt = event.to
          moves.push(RunJson.moveOf(event))
        }
        if (event._tag === "Result") result = event
        if (shape.json) return yield* line(RunJson.ofEvent(event))
        yield* countdown.stop
        if (event._tag === "Text" || (event._tag === "Result" && shown === "")) {
          shown += event.text
          yield* show(event.text)
        }
      })

    const events = (answer: ReadonlyArray<Backend.Event>) => Effect.forEach(answer, onEvent, { discard: true })

    /** The turn's answered outcome: the last line with --json, else the answer's last newline. */
    const answered = Effect.gen(function*() {
      if (shape.json) {
        return yield* line({
          type: "outcome",
          ok: true,
          status: 0,
          place: Place.format(answeredAt),
          model: result?.model ?? answeredAt.model,
          ...(result === undefined ? {} : { usage: { input: result.usage.input, output: result.usage.output } }),
          moves
        })
      }
      if (!shown.endsWith("\n")) yield* show("\n")
      if (onTerminal) yield* Console.error(`answered at ${Place.format(answeredAt)}`)
    })

    /**
     * A failed turn as the error the command ends with: a Cut after part of the answer was
     * printed, else Unanswered; with --json its outcome line first.
     */
    const failed = (error: Failure.Failure | Agent.Cut) =>
      Effect.gen(function*() {
        const told = error instanceof Agent.Cut ? new CutShort({ cut: error }) : new Unanswered({ failure: error })
        const failure = error instanceof Agent.Cut ? error.failure : error
        if (shape.json) {
          yield* line({
            type: "outcome",
            ok: false,
            status: told.status,
            place: Place.format(failure.place),
            moves,
            kind: failure._tag,
            message: failure.message
          })
        } else if (error instanceof Agent.Cut && !shown.endsWith("\n")) {
          // the part already printed ends its line, so the error reads on its own
          yield* show("\n")
        }
        return yield* told
      })

    return {
      notices,
      onEvent,
      events,
      answered,
      failed,
      stop: countdown.stop,
      answeredAt: () => answeredAt,
      sessionId: () => sessionId
    }
  })
