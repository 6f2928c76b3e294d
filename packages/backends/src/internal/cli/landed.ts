import * as Backend from "@fallback/core/Backend"
import * as Result from "effect/Result"
import type * as Cli from "../../Cli.js"

/**
 * A landed turn: the session event first when the id is known, then its content, then the result.
 *
 * @internal
 */
export const landed = (
  sessionId: string | undefined,
  content: ReadonlyArray<Backend.Event>,
  text: string,
  usage: Backend.Usage
): Cli.Outcome =>
  Result.succeed({
    sessionId,
    events: [
      ...(sessionId === undefined ? [] : [Backend.Event.SessionStarted({ sessionId })]),
      ...content,
      Backend.Event.Result({ text, usage })
    ]
  })
