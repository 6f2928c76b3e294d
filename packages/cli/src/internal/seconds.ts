import * as Duration from "effect/Duration"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"

/**
 * A time on the command line that is not one: the message shows the forms that are.
 *
 * @internal
 */
export class InvalidTime extends Schema.TaggedError<InvalidTime>("@fallback/cli/InvalidTime")("InvalidTime", {
  input: Schema.String
}) {
  override get message(): string {
    return `"${this.input}" is not a time; write seconds (90, 90s) or add a unit: 500ms, 2m, 1h, 0 for none`
  }
}

const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }
const bare = /^\d+(?:\.\d+)?$/
const compound = /^(?:\d+(?:\.\d+)?(?:ms|h|m|s))+$/
const part = /(\d+(?:\.\d+)?)(ms|h|m|s)/g

/**
 * Reads `90`, `90s`, `1.5s`, `500ms`, `2m`, `1m30s`, `1h` (a bare number is seconds).
 *
 * @internal
 */
export const parseTime = (input: string): Result.Result<Duration.Duration, InvalidTime> => {
  const text = input.trim()
  if (bare.test(text)) return Result.succeed(Duration.millis(Number(text) * 1000))
  if (!compound.test(text)) return Result.fail(new InvalidTime({ input }))
  const millis = [...text.matchAll(part)].reduce((sum, [, amount, unit]) => sum + Number(amount) * units[unit!]!, 0)
  return Result.succeed(Duration.millis(millis))
}

/**
 * A time as the command line writes it: `0`, `800ms`, `90s`, `2m`, `1m30s`, `1h`.
 *
 * @internal
 */
export const formatTime = (duration: Duration.Duration): string => {
  if (!Duration.isFinite(duration)) return "until cleared"
  const millis = Math.round(Duration.toMillis(duration))
  if (millis === 0) return "0"
  if (millis % 1000 !== 0) return `${millis}ms`
  const seconds = millis / 1000
  if (seconds < 60) return `${seconds}s`
  if (seconds % 3600 === 0) return `${seconds / 3600}h`
  const rest = seconds % 60
  return rest === 0 ? `${Math.floor(seconds / 60)}m` : `${Math.floor(seconds / 60)}m${rest}s`
}
