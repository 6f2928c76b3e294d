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
 * The exit statuses as the help and the README show them.
 *
 * @internal
 */
export const exitStatusTable: string = [
  "    0  answered",
  "    1  the command line or the config file was wrong",
  ...Failure.kinds.map((kind) => `  ${String(exitStatuses[kind]).padStart(3)}  ${kind}`)
].join("\n")

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
    return this.failure.message
  }
}
