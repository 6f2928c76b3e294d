import * as Classify from "@fallback/core/Classify"
import * as Failure from "@fallback/core/Failure"
import type * as Place from "@fallback/core/Place"
import * as Result from "effect/Result"
import type * as Cli from "../../Cli.js"
import type { Description } from "./backend.js"
import * as gemini from "./gemini.js"

/** @internal */
export const install = "install Antigravity from https://antigravity.google (it is not on npm)"

/** @internal */
export const argv = (turn: Cli.Turn): ReadonlyArray<string> => [
  "-m",
  turn.model,
  "--output-format",
  "stream-json",
  ...(turn.resume === undefined ? [] : ["--resume", turn.resume]),
  `--prompt=${turn.prompt}`
]

const terminated = /Agent execution terminated due to error/i

const statuses = [
  /\b(?:status(?:[_ ]?code)?|http[_ ]?status|code)["']?\s*[:=]\s*["']?([45]\d\d)\b/gi,
  /\bHTTP(?:\/\d(?:\.\d)?)?\s+([45]\d\d)\b/g,
  /\b([45]\d\d) (?:Too Many Requests|Unauthorized|Forbidden|Not Found|Payment Required|Bad Request|Internal Server Error|Bad Gateway|Service Unavailable|Gateway Timeout)\b/g
]

/**
 * The last HTTP error status the log names, with the line that names it.
 *
 * @internal
 */
export const statusInLog = (log: string): { readonly status: number; readonly line: string } | undefined => {
  let found: { readonly status: number; readonly line: string } | undefined
  for (const line of log.split("\n")) {
    for (const pattern of statuses) {
      for (const match of line.matchAll(pattern)) found = { status: Number(match[1]), line: line.trim() }
    }
  }
  return found
}

/** @internal */
export const readOutcome = (finished: Cli.Finished, place: Place.Place): Cli.Outcome => {
  const stderr = finished.stderr.split("\n").filter((line) => !terminated.test(line)).join("\n")
  const outcome = gemini.readOutcome({ ...finished, stderr }, place)
  if (Result.isSuccess(outcome)) return outcome
  const logged = outcome.failure._tag === "Unknown" ? statusInLog(finished.log ?? "") : undefined
  if (logged !== undefined) return Result.fail(Classify.byStatus(logged.status, logged.line.slice(-400), place))
  if (outcome.failure._tag === "Unknown" && terminated.test(finished.stderr)) {
    return Result.fail(
      new Failure.Unknown({
        place,
        said: Failure.said("Agent execution terminated due to error (its log names no HTTP status)")
      })
    )
  }
  return Result.fail(
    outcome.failure._tag === "NotInstalled"
      ? new Failure.NotInstalled({ place, install, said: outcome.failure.said })
      : outcome.failure
  )
}

// gemini's, less the settings that turn gemini's retrying off (antigravity's are its own)
const { prepare: _geminiOnly, ...base } = gemini.description({})

/** @internal */
export const description: Description = {
  ...base,
  module: "Antigravity",
  cli: "antigravity",
  install,
  // gemini's approval modes are not known to be antigravity's: it is given no rung
  capabilities: { ...base.capabilities, permission: false },
  argv,
  readOutcome,
  log: (env) => {
    const home = env.GEMINI_CLI_HOME ?? env.HOME
    return home === undefined ? undefined : `${home}/.gemini/antigravity-cli/log`
  }
}
