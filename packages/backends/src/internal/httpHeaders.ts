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
