import * as Duration from "effect/Duration"

/**
 * A wait as people say it: `800ms`, `30s`, `1m30s`, `5m`.
 *
 * @internal
 */
export const wait = (input: Duration.DurationInput): string => {
  const millis = Math.round(Duration.toMillis(Duration.decode(input)))
  if (millis < 1000) return `${millis}ms`
  const seconds = Math.round(millis / 1000)
  if (seconds < 60) return `${seconds}s`
  const minutes = Math.floor(seconds / 60)
  const rest = seconds % 60
  return rest === 0 ? `${minutes}m` : `${minutes}m${rest}s`
}
