import type { Failure, Place } from "@fallback/core"
import { judge } from "./classify.js"
import { waitAsked } from "./httpHeaders.js"

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
  /** Whether the body went on past {@link longestRefusal} (the rest was not read). */
  readonly cut?: boolean | undefined
}

/**
 * The most of a refusal's body that is read: 64 KiB, far more than any provider's error says, so
 * its head is kept for the classifier and the rest is never read (the request is let go).
 *
 * @internal
 */
export const longestRefusal = 64 * 1024

/**
 * The head of a refusal's body as it comes: its first {@link longestRefusal} bytes kept, `cut`
 * once a byte past them came (then nothing more needs reading).
 *
 * @internal
 */
export class Head {
  private readonly parts: Array<Uint8Array> = []
  private size = 0
  cut = false

  /** Keeps what of `chunk` fits; returns the head. */
  add(chunk: Uint8Array): this {
    if (this.cut) return this
    const room = longestRefusal - this.size
    if (chunk.length > room) this.cut = true
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk
    this.parts.push(kept)
    this.size += kept.length
    return this
  }

  /** The kept bytes as text. */
  text(): string {
    return new TextDecoder().decode(Buffer.concat(this.parts))
  }
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

/** The wait `retry-after-ms`, else `retry-after`, asks for, in millis. */
const retryAfter = (headers: Refusal["headers"], now: number): number | undefined => {
  const millis = headers["retry-after-ms"]
  const asked = millis === undefined ? undefined : waitAsked("retry-after-ms", millis, now)
  if (asked !== undefined) return asked
  const value = headers["retry-after"]
  return value === undefined ? undefined : waitAsked("retry-after", value, now)
}

/** The longest wait any rate-limit reset header asks for, in millis. */
const latestReset = (headers: Refusal["headers"], now: number): number | undefined => {
  const waits = Object.entries(headers).flatMap(([name, value]) => {
    const lower = name.toLowerCase()
    const wait = value === undefined || lower.startsWith("retry-after") ? undefined : waitAsked(lower, value, now)
    return wait === undefined ? [] : [wait]
  })
  return waits.length === 0 ? undefined : Math.max(...waits)
}

/**
 * The failure an HTTP provider's refusal is, by the one classifier every backend uses: the
 * status and the vendor's own error type, code and words. `retry-after` and the vendors' reset
 * headers become the rate limit's wait and the quota's end, each read as a hint (httpHeaders.ts).
 *
 * @internal
 */
export const classify = (refusal: Refusal, place: Place.Place, now: number): Failure.Failure => {
  const said = saidIn(refusal.body)
  const status = refusal.status
  // Both are waits of at most longestAsked from now: the quota's end comes from the reset headers first.
  const wait = retryAfter(refusal.headers, now)
  const reset = latestReset(refusal.headers, now)
  return judge({
    status,
    words: `${said.type} ${said.code} ${said.message}`,
    said: [
      (status === undefined ? "in the stream" : String(status)) +
      (refusal.cut === true ? ` (only the first ${longestRefusal / 1024} KiB of the body read)` : ""),
      said.type || said.code,
      said.message
    ]
      .filter((part) => part !== "")
      .join(": "),
    retryAfter: wait ?? reset,
    until: reset === undefined ? (wait === undefined ? undefined : now + wait) : now + reset
  }, place)
}
