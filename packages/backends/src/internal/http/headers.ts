import { type ConfigFile, Failure, type Place } from "@fallback/core"
import * as Secret from "@fallback/core/Secret"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"

/**
 * The headers a provider's config adds to every request, their values read now: a plain value as
 * written, a `{ fromEnv }` one from the variable it names (or from the one the account points that
 * variable at, as for the key), held as a secret so no text leaving the process shows it. A variable
 * that is not set is AuthRefused: the account cannot be used as it is.
 *
 * @internal
 */
export const headersOf = (
  place: Place.Place,
  headers: typeof ConfigFile.Headers.Type | undefined,
  account: Option.Option<ConfigFile.Account>
): Effect.Effect<Record<string, string>, Failure.Failure> =>
  headers === undefined ? Effect.succeed({}) : Effect.map(
    Effect.forEach(Object.entries(headers), ([name, value]) => {
      if (typeof value === "string") return Effect.succeed([name, value] as const)
      const own = Option.getOrUndefined(
        Option.flatMap(account, (found) => Option.fromNullable(found.env?.[value.fromEnv]))
      )
      if (typeof own === "string") return Effect.succeed([name, own] as const)
      const variable = own?.fromEnv ?? value.fromEnv
      return Config.redacted(variable).pipe(
        Effect.map((read) => {
          Secret.hold(Redacted.value(read))
          return [name, Redacted.value(read)] as const
        }),
        Effect.mapError(() =>
          new Failure.AuthRefused({
            place,
            said: Failure.said(`no value for the header ${name}: the variable ${variable} is not set`)
          })
        )
      )
    }),
    Object.fromEntries
  )

/**
 * The longest wait a provider's headers (or words) can ask for: 30 minutes, the cooldown the
 * escalating preset registers for a rate limit or a spent quota (002). A longer one is read as
 * this; health shared with every host is never cooled for longer on a provider's say-so.
 *
 * @internal
 */
export const longestAsked = 30 * 60_000

/**
 * A wait a provider asked for, in millis, as a hint: none when negative or not a finite number,
 * at most {@link longestAsked}.
 *
 * @internal
 */
export const hinted = (millis: number | undefined): number | undefined =>
  millis === undefined || !Number.isFinite(millis) || millis < 0 ? undefined : Math.min(millis, longestAsked)

/** A plain decimal number (`12`, `1.5`), spaces around it allowed; nothing else JavaScript reads as one (`0x10`, `""`, `1e3`). */
const decimal = (value: string): number | undefined =>
  /^\s*\d{1,20}(?:\.\d{1,20})?\s*$/.test(value) ? Number(value) : undefined

/**
 * A Go-style duration as OpenAI writes its reset headers (`1s`, `6m0s`, `20ms`, `1h2m3.5s`), in
 * millis; none for anything else.
 *
 * @internal
 */
export const spelled = (value: string): number | undefined => {
  const text = value.trim()
  if (!/^(?:\d{1,20}(?:\.\d{1,20})?(?:ms|h|m|s))+$/.test(text)) return undefined
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const
  return [...text.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)]
    .reduce((sum, [, amount, name]) => sum + Number(amount) * unit[name as keyof typeof unit], 0)
}

/** An HTTP date (`Fri, 31 Dec 9999 23:59:59 GMT`) or an RFC 3339 time, in epoch millis; none for anything else. */
const dated = (value: string): number | undefined => {
  const text = value.trim()
  const httpDate = /^[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/
  const rfc3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:[Zz]|[+-]\d{2}:\d{2})$/
  if (!httpDate.test(text) && !rfc3339.test(text)) return undefined
  const at = Date.parse(text)
  return Number.isNaN(at) ? undefined : at
}

/** The wait one rate-limit header asks for, in millis from `now`, unbounded; none when it is not one or says nothing readable. */
const askedBy = (name: string, value: string, now: number): number | undefined => {
  if (name === "retry-after-ms") return decimal(value)
  if (name === "retry-after") {
    const seconds = decimal(value)
    if (seconds !== undefined) return seconds * 1000
    const at = dated(value)
    return at === undefined ? undefined : Math.max(0, at - now)
  }
  if (name.startsWith("anthropic-ratelimit-") && name.endsWith("-reset")) {
    const at = dated(value)
    return at === undefined ? undefined : Math.max(0, at - now)
  }
  if (name.startsWith("x-ratelimit-reset-")) {
    const seconds = decimal(value)
    return spelled(value) ?? (seconds === undefined ? undefined : seconds * 1000)
  }
  return undefined
}

/**
 * The wait one response header asks for (`retry-after-ms`, `retry-after` in seconds or as an HTTP
 * date, `x-ratelimit-reset-*`, `anthropic-ratelimit-*-reset`), in millis from `now`: a hint, so
 * none when the header is another or its value is negative, not a number or a date, or not
 * finite; at most {@link longestAsked}.
 *
 * @internal
 */
export const waitAsked = (name: string, value: string, now: number): number | undefined =>
  hinted(askedBy(name.toLowerCase(), value, now))
