/**
 * The waits a provider asks for, in its headers or its words, read as hints: bounded, and none
 * when what was written is not a readable wait.
 */

/** @internal */
export const longestAsked = 30 * 60_000

/** @internal */
export const hinted = (millis: number | undefined): number | undefined =>
  millis === undefined || !Number.isFinite(millis) || millis < 0 ? undefined : Math.min(millis, longestAsked)

/** A plain decimal number (`12`, `1.5`), spaces around it allowed; nothing else JavaScript reads as one (`0x10`, `""`, `1e3`). */
const decimal = (value: string): number | undefined =>
  /^\s*\d{1,20}(?:\.\d{1,20})?\s*$/.test(value) ? Number(value) : undefined

/** @internal */
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

/** @internal */
export const waitAsked = (name: string, value: string, now: number): number | undefined =>
  hinted(askedBy(name.toLowerCase(), value, now))
