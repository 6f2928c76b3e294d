import * as Classify from "@fallback/core/Classify"
import * as Failure from "@fallback/core/Failure"
import type * as Place from "@fallback/core/Place"
import type * as Cli from "../../Cli.js"

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

/**
 * How every CLI's failed turn ends when nothing it printed named the failure: a signal (or the
 * exit status of a trapped one) is Killed; a broken install is NotInstalled with the line that
 * installs it; the words of its error (`message`) name a kind; anything else is Unknown, saying
 * the CLI ended `without` what it should have printed.
 *
 * @internal
 */
export const ended = (
  finished: Cli.Finished,
  place: Place.Place,
  options: {
    readonly install: string
    readonly message: string
    readonly without: string
    /** Whether an exit status of 128 + a signal's number is read as that signal (not when a result was printed). */
    readonly trapped?: boolean
    /** Whether the install may be broken (not when the CLI printed a result). */
    readonly mayBeBroken?: boolean
    /** How the CLI's error words are read, when it writes a status into them. */
    readonly read?: (message: string, place: Place.Place) => Failure.Failure
  }
): Failure.Failure => {
  if (finished.signal !== null) {
    return Classify.killed(finished.signal, place, `${place.cli} was killed by ${finished.signal}`)
  }
  const trapped = options.trapped === false ? undefined : trappedSignal(finished.exitCode)
  if (trapped !== undefined) {
    return Classify.killed(trapped, place, `${place.cli} exited ${finished.exitCode} on ${trapped}`)
  }
  if (options.mayBeBroken !== false && brokenInstall(finished)) {
    return new Failure.NotInstalled({
      place,
      install: options.install,
      said: Failure.said(Classify.tail(finished.stderr) || `${place.cli} would not start`)
    })
  }
  if (options.message.length > 0) return (options.read ?? Classify.byMessage)(options.message, place)
  return Classify.other(`${place.cli} ended (exit ${finished.exitCode}) without ${options.without}`, place)
}
