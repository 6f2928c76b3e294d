import { Backend } from "@fallback/core"
import * as Either from "effect/Either"
import type * as Cli from "../Cli.js"

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
  Either.right({
    sessionId,
    events: [
      ...(sessionId === undefined ? [] : [Backend.Event.SessionStarted({ sessionId })]),
      ...content,
      Backend.Event.Result({ text, usage })
    ]
  })

/**
 * The signal a CLI that traps signals reports as its exit status (128 + the signal's number).
 *
 * @internal
 */
export const trappedSignal = (exitCode: number | null): string | undefined =>
  exitCode === 130
    ? "SIGINT"
    : exitCode === 137
    ? "SIGKILL"
    : exitCode === 143
    ? "SIGTERM"
    : exitCode === 129
    ? "SIGHUP"
    : undefined

/**
 * Whether a CLI's stderr says its install is broken: the stub npm leaves when a postinstall did
 * not run, a platform package that was never downloaded, or a shell that found nothing to run.
 *
 * @internal
 */
export const brokenInstall = (finished: Cli.Finished): boolean =>
  finished.exitCode === 126 || finished.exitCode === 127 ||
  /native binary not installed|postinstall(?: script)? (?:was|did) not run|missing optional dependency|cannot find module|exec format error/i
    .test(finished.stderr)
