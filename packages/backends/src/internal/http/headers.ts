/**
 * What a provider's request carries besides its body: the key, read from the variable the
 * provider (or the account) names, and the config's headers, each value read when a session opens.
 */
import type * as Account from "@fallback/core/Account"
import * as Failure from "@fallback/core/Failure"
import type * as Place from "@fallback/core/Place"
import type * as Provider from "@fallback/core/Provider"
import * as Secret from "@fallback/core/Secret"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"

/** Where a key is read: a variable, or the value an account wrote itself. */
export type KeySource = { readonly variable: string } | { readonly value: string }

/** The variable an account points `variable` at, or the value it writes for it; none when it says nothing of it. */
const ownFor = (account: Option.Option<Account.Account>, variable: string) =>
  Option.getOrUndefined(Option.flatMap(account, (found) => Option.fromNullishOr(found.env?.[variable])))

/** A variable's value, held as a secret so that no text leaving the process shows it. */
const secretOf = (
  variable: string,
  missing: () => Failure.Failure
): Effect.Effect<Redacted.Redacted, Failure.Failure> =>
  Config.Redacted(variable).pipe(
    Effect.tap((read) => Effect.sync(() => Secret.hold(Redacted.value(read)))),
    Effect.mapError(missing)
  )

/**
 * The source of a provider's key for an account: the account's own reference when it names the
 * provider's key variable, else the provider's variable; none for a provider without a key.
 *
 * @internal
 */
export const keySource = (
  key: { readonly fromEnv: string } | undefined,
  account: Option.Option<Account.Account>
): Option.Option<KeySource> => {
  if (key === undefined) return Option.none()
  const own = ownFor(account, key.fromEnv)
  return Option.some(
    own === undefined ? { variable: key.fromEnv } : typeof own === "string" ? { value: own } : { variable: own.fromEnv }
  )
}

/**
 * The key, read now; a variable that is not set is AuthRefused.
 *
 * @internal
 */
export const readKey = (
  place: Place.Place,
  source: Option.Option<KeySource>
): Effect.Effect<Option.Option<Redacted.Redacted>, Failure.Failure> => {
  if (Option.isNone(source)) return Effect.succeedNone
  const found = source.value
  if ("value" in found) return Effect.succeed(Option.some(Redacted.make(found.value)))
  return Effect.asSome(secretOf(found.variable, () =>
    new Failure.AuthRefused({
      place,
      said: Failure.said(`no key: the variable ${found.variable} is not set`)
    })))
}

/**
 * The headers a provider's config adds to every request, their values read now: a plain value as
 * written, a `{ fromEnv }` one from the variable it names (or from the one the account points that
 * variable at, as for the key), held as a secret. A variable that is not set is AuthRefused: the
 * account cannot be used as it is.
 *
 * @internal
 */
export const headersOf = (
  place: Place.Place,
  headers: typeof Provider.Headers.Type | undefined,
  account: Option.Option<Account.Account>
): Effect.Effect<Record<string, string>, Failure.Failure> =>
  headers === undefined ? Effect.succeed({}) : Effect.map(
    Effect.forEach(Object.entries(headers), ([name, value]) => {
      if (typeof value === "string") return Effect.succeed([name, value] as const)
      const own = ownFor(account, value.fromEnv)
      if (typeof own === "string") return Effect.succeed([name, own] as const)
      const variable = own?.fromEnv ?? value.fromEnv
      return Effect.map(
        secretOf(variable, () =>
          new Failure.AuthRefused({
            place,
            said: Failure.said(`no value for the header ${name}: the variable ${variable} is not set`)
          })),
        (read) => [name, Redacted.value(read)] as const
      )
    }),
    Object.fromEntries
  )
