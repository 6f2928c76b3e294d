import * as Duration from "effect/Duration"

/**
 * A wait as people say it: `800ms`, `30s`, `1m30s`, `5m`, `23h59m`.
 *
 * @internal
 */
export const wait = (input: Duration.Input): string => {
  const millis = Math.round(Duration.toMillis(Duration.fromInputUnsafe(input)))
  if (millis < 1000) return `${millis}ms`
  const seconds = Math.round(millis / 1000)
  if (seconds < 60) return `${seconds}s`
  const minutes = Math.floor(seconds / 60)
  const rest = seconds % 60
  if (minutes >= 60) {
    // A day's cooldown is said in hours and minutes; its seconds say nothing.
    const left = minutes % 60
    return `${Math.floor(minutes / 60)}h${left === 0 ? "" : `${left}m`}`
  }
  return rest === 0 ? `${minutes}m` : `${minutes}m${rest}s`
}
