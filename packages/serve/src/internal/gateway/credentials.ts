import type * as Account from "@fallback/core/Account"
import * as Secret from "@fallback/core/Secret"
import type * as Headers from "effect/http/Headers"
import * as Redacted from "effect/Redacted"
import { createHash, timingSafeEqual } from "node:crypto"

/** @internal */
export const sha256 = (text: string): string => createHash("sha256").update(text).digest("hex")

/** Whether two secrets are equal, in time that says nothing of where they differ (or of their lengths). */
const same = (a: string, b: string): boolean =>
  timingSafeEqual(createHash("sha256").update(a).digest(), createHash("sha256").update(b).digest())

const bearerOf = (headers: Headers.Headers): string | undefined => {
  const value = headers["authorization"]
  const match = value === undefined ? null : /^Bearer\s+(.+)$/i.exec(value.trim())
  return match === null ? undefined : match[1]!.trim()
}

/**
 * What a request's credentials say: whether it may use the gateway, and the caller's own key
 * (the `x-api-key` or bearer that is not the gateway's token), when it sends one.
 *
 * @internal
 */
export interface Credentials {
  readonly allowed: boolean
  readonly key?: string | undefined
}

/** @internal */
export const credentialsOf = (headers: Headers.Headers, token: Redacted.Redacted | undefined): Credentials => {
  const sent = [headers["x-api-key"]?.trim(), bearerOf(headers)].filter(
    (value): value is string => value !== undefined && value !== ""
  )
  if (token === undefined) return { allowed: true, key: sent[0] }
  const own = String(Redacted.value(token))
  const matched = sent.map((value) => same(value, own))
  return { allowed: matched.includes(true), key: sent.find((_, i) => !matched[i]) }
}

/** A caller's key as the account its place is first tried with: named by its hash, so each key has its own health. @internal */
export const callerAccount = (key: string, variable: string): Account.Account => {
  Secret.hold(key)
  // A plain account, not the schema's: the schema refuses a literal key (a config file never holds one).
  return { name: callerName(key), env: { [variable]: key } } as unknown as Account.Account
}

/** @internal */
export const callerName = (key: string): string => `caller-${sha256(key).slice(0, 8)}`
