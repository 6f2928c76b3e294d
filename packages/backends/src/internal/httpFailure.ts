import type { Failure, Place } from "@fallback/core"
import { judge } from "./classify.js"

/**
 * What a provider answered when it did not answer: the HTTP status (none for an error inside a
 * stream), the response headers, and the body as text.
 *
 * @internal
 */
export interface Refusal {
  readonly status?: number | undefined
  readonly headers: Readonly<Record<string, string | undefined>>
  readonly body: string
}

interface Said {
  readonly type: string
  readonly code: string
  readonly message: string
}

const text = (value: unknown): string =>
  typeof value === "string" ? value : typeof value === "number" ? String(value) : ""

const record = (value: unknown): Record<string, unknown> =>
  typeof value === "object" && value !== null ? value as Record<string, unknown> : {}

/**
 * The error a body carries in any of the shapes providers use: Anthropic's
 * `{ type: "error", error: { type, message } }`, OpenAI's `{ error: { message, type, code } }`,
 * Ollama's `{ error: "…" }`, vLLM's `{ object: "error", message, type, code }`; an HTML page or
 * plain text is kept as its words.
 */
const saidIn = (body: string): Said => {
  try {
    const parsed = record(JSON.parse(body))
    const error = parsed.error
    if (typeof error === "string") return { type: "", code: "", message: error }
    const inner = typeof error === "object" && error !== null ? record(error) : parsed
    const details = record(inner.details)
    return {
      type: text(inner.type) === "error" ? "" : text(inner.type),
      code: text(inner.code) || text(details.error_code) || text(inner.status),
      message: text(inner.message)
    }
  } catch {
    const words = body.replace(/<[^>]*>/g, " ").replace(/\s+/g, " ").trim()
    return { type: "", code: "", message: words.slice(0, 300) }
  }
}

/** Go-style durations as OpenAI writes its reset headers: `1s`, `6m0s`, `20ms`, `1h2m3.5s`. */
const spelled = (value: string): number | undefined => {
  const parts = [...value.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)]
  if (parts.length === 0) return undefined
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const
  return parts.reduce((sum, [, amount, name]) => sum + Number(amount) * unit[name as keyof typeof unit], 0)
}

/** When a reset header says the limit comes back, in epoch millis. */
const resetAt = (name: string, value: string, now: number): number | undefined => {
  if (name.startsWith("anthropic-ratelimit-") && name.endsWith("-reset")) {
    const at = Date.parse(value)
    return Number.isNaN(at) ? undefined : at
  }
  if (name.startsWith("x-ratelimit-reset-")) {
    const after = spelled(value) ?? (Number.isFinite(Number(value)) ? Number(value) * 1000 : undefined)
    return after === undefined ? undefined : now + after
  }
  return undefined
}

/** The wait `retry-after-ms` or `retry-after` (seconds or an HTTP date) asks for, in millis. */
const retryAfter = (headers: Refusal["headers"], now: number): number | undefined => {
  const millis = Number(headers["retry-after-ms"])
  if (headers["retry-after-ms"] !== undefined && Number.isFinite(millis)) return Math.max(0, millis)
  const value = headers["retry-after"]
  if (value === undefined) return undefined
  const seconds = Number(value)
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000)
  const at = Date.parse(value)
  return Number.isNaN(at) ? undefined : Math.max(0, at - now)
}

/** The latest time any rate-limit reset header names, in epoch millis. */
const latestReset = (headers: Refusal["headers"], now: number): number | undefined => {
  const times = Object.entries(headers).flatMap(([name, value]) => {
    const at = value === undefined ? undefined : resetAt(name.toLowerCase(), value, now)
    return at === undefined ? [] : [at]
  })
  return times.length === 0 ? undefined : Math.max(...times)
}

/**
 * The failure an HTTP provider's refusal is, by the one classifier every backend uses: the
 * status and the vendor's own error type, code and words. `retry-after` and the vendors' reset
 * headers become the rate limit's wait and the quota's end.
 *
 * @internal
 */
export const classify = (refusal: Refusal, place: Place.Place, now: number): Failure.Failure => {
  const said = saidIn(refusal.body)
  const status = refusal.status
  const wait = retryAfter(refusal.headers, now)
  const reset = latestReset(refusal.headers, now)
  return judge({
    status,
    words: `${said.type} ${said.code} ${said.message}`,
    said: [status === undefined ? "in the stream" : String(status), said.type || said.code, said.message]
      .filter((part) => part !== "")
      .join(": "),
    retryAfter: wait ?? (reset === undefined ? undefined : Math.max(0, reset - now)),
    until: reset ?? (wait === undefined ? undefined : now + wait)
  }, place)
}
