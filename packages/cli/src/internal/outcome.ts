import * as Agent from "@fallback/core/Agent"
import * as Failure from "@fallback/core/Failure"
import * as Schema from "effect/Schema"

/**
 * The exit status of `fallback run` for each way a turn can finally fail; 0 is an answer, 1 a
 * usage or config error. A kind added to the union without a status here does not compile.
 *
 * @internal
 */
export const exitStatuses: { readonly [Kind in Failure.Kind]: number } = {
  RateLimited: 10,
  QuotaExhausted: 11,
  AuthRefused: 12,
  ModelNotFound: 13,
  StoreBusy: 14,
  ConnectionLost: 15,
  Killed: 16,
  NotInstalled: 17,
  ContextTooLong: 18,
  Timeout: 19,
  Unresponsive: 20,
  Unknown: 21,
  ArgumentsRefused: 22,
  Refused: 23
}

/**
 * The exit status of a streamed turn cut after part of its answer was printed (an
 * {@link Agent.Cut}), whatever the failure's kind: what was printed is not the whole answer.
 *
 * @internal
 */
export const cutStatus = 24

/**
 * The exit statuses as the help and the README show them.
 *
 * @internal
 */
export const exitStatusTable: string = [
  "    0  answered",
  "    1  the command line or the config file was wrong",
  ...Failure.kinds.map((kind) => `  ${String(exitStatuses[kind]).padStart(3)}  ${kind}`),
  `  ${
    String(cutStatus).padStart(3)
  }  Cut: the streamed answer stopped after part of it was printed (never with --whole or --json)`,
  "  128+n  ended by signal n, its CLI stopped: 130 INT, 143 TERM, 129 HUP, 131 QUIT"
].join("\n")

/**
 * A place at opencode whose model lacks opencode's PROVIDER/ (`opencode/gpt-5`).
 *
 * @internal
 */
export const plainAtOpencode = (place: Failure.Failure["place"]): boolean =>
  place.cli === "opencode" && !place.model.includes("/")

/**
 * What a person may have got wrong when a failure says so: opencode names its models
 * PROVIDER/MODEL, so a plain model there that is not found (or not understood) is likely that.
 *
 * @internal
 */
export const hintOf = (failure: Failure.Failure): string =>
  plainAtOpencode(failure.place) &&
    (failure._tag === "ModelNotFound" || failure._tag === "ArgumentsRefused" || failure._tag === "Unknown")
    ? `; opencode names a model PROVIDER/MODEL: write the place as opencode/PROVIDER/${failure.place.model} (\`opencode models\` lists them)`
    : ""

/**
 * A turn that ended without an answer: what it failed with, and the exit status that says so.
 *
 * @internal
 */
export class Unanswered extends Schema.TaggedError<Unanswered>("@fallback/cli/Unanswered")("Unanswered", {
  failure: Failure.Failure
}) {
  get status(): number {
    return exitStatuses[this.failure._tag]
  }

  override get message(): string {
    return this.failure.message + hintOf(this.failure)
  }
}

/**
 * `status --try` took its turn and the place failed again (the failure is recorded): the exit
 * status is the one `run` gives the same failure.
 *
 * @internal
 */
export class TrialFailed extends Schema.TaggedError<TrialFailed>("@fallback/cli/TrialFailed")("TrialFailed", {
  place: Schema.String,
  failure: Failure.Failure
}) {
  get status(): number {
    return exitStatuses[this.failure._tag]
  }

  override get message(): string {
    return `${this.place} failed again: ${this.failure.message}${hintOf(this.failure)}; the failure is recorded`
  }
}

/**
 * A streamed turn that failed after part of its answer was printed, and was not continued: the
 * place, that what was printed is not the whole answer, the failure, and {@link cutStatus}.
 *
 * @internal
 */
export class CutShort extends Schema.TaggedError<CutShort>("@fallback/cli/CutShort")("CutShort", {
  cut: Agent.Cut
}) {
  get status(): number {
    return cutStatus
  }

  override get message(): string {
    return `${this.cut.message}${hintOf(this.cut.failure)}; what was printed above is only part of the answer ` +
      `(exit ${cutStatus}); --whole waits for a whole answer and moves on instead`
  }
}
