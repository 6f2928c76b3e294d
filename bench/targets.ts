/**
 * The targets the figures are held to (issue 18's table), each read from the figures of the same
 * run: a ratio to a peer measured beside it, or a difference from it. An absolute difference (µs,
 * ms) was set on a faster machine; it is also read scaled by how much slower this machine ran the
 * baseline than that one did (`reference`), and called met on that reading when only it holds.
 */
import type { Figure } from "./figures.js"

/** What a target came to in one run: its reading, and whether it is met. */
export interface Reading {
  readonly value: string
  readonly met: boolean
  readonly how?: string | undefined
}

/** One target: the bench, what it holds, the target in words and how to read it from a run's figures. */
export interface Target {
  readonly bench: string
  readonly what: string
  readonly target: string
  readonly read: (figures: ReadonlyArray<Figure>) => Reading | undefined
}

const find = (figures: ReadonlyArray<Figure>, bench: string, what: string) =>
  figures.find((f) => f.bench === bench && f.what === what)

const format = (value: number) => value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2)

/** `subject` at most `max` times `baseline` (`atLeast`: at least `max` times). */
export const ratio = (
  bench: string,
  what: string,
  subject: string,
  baseline: string,
  limit: number,
  atLeast = false
): Target => ({
  bench,
  what,
  target: `${atLeast ? "≥" : "≤"} ${limit}× ${baseline}`,
  read: (figures) => {
    const s = find(figures, bench, subject)
    const b = find(figures, bench, baseline)
    if (s === undefined || b === undefined) return undefined
    const r = s.median / b.median
    return {
      value: `${format(s.median)} ${s.unit} / ${format(b.median)} ${b.unit} = ${r.toFixed(2)}×`,
      met: atLeast ? r >= limit : r <= limit
    }
  }
})

/**
 * `subject` at most `limit` (in the figures' unit) over `baseline`; `reference` is the baseline's
 * figure on the machine the limit was set on.
 */
export const over = (
  bench: string,
  what: string,
  subject: string,
  baseline: string,
  limit: number,
  reference?: number
): Target => ({
  bench,
  what,
  target: `≤ +${limit} over ${baseline}`,
  read: (figures) => {
    const s = find(figures, bench, subject)
    const b = find(figures, bench, baseline)
    if (s === undefined || b === undefined) return undefined
    const diff = s.median - b.median
    const scaled = reference === undefined ? limit : limit * Math.max(1, b.median / reference)
    const met = diff <= limit
    return {
      value: `${format(s.median)} − ${format(b.median)} = +${format(diff)} ${s.unit}`,
      met: met || diff <= scaled,
      how: met || scaled === limit
        ? undefined
        : diff <= scaled
        ? `met only as scaled to this machine: ≤ +${format(scaled)}`
        : `scaled to this machine: ≤ +${format(scaled)}`
    }
  }
})

/** Issue 18's targets, and issue 14's for B6. */
export const targets: Array<Target> = [
  over("B1", "landing turn, whole", "fallback Agent.ask (held agent)", "Effect.tryPromise (bare)", 2, 0.83),
  ratio("B1", "landing turn, streamed", "fallback agent.turn, streamed", "fallback's session stream (bare)", 1.5),
  over("B2", "one failover", "fallback Agent.ask (held agent)", "hand-written Effect.catchAll", 5, 10.8),
  ratio(
    "B3",
    "10k turns over 1k agents: wall",
    "fallback, 1,000 held agents: wall",
    "cockatiel fallback+breaker, one per place: wall",
    1.8
  ),
  ratio(
    "B3",
    "10k turns over 1k agents: heap",
    "fallback, 1,000 held agents: heap growth",
    "cockatiel fallback+breaker, one per place: heap growth",
    1.1
  ),
  ratio("B4", "cold start, --help", "fallback --help", "node -e 0", 3),
  ratio("B4", "cold start, chain X", "fallback chain X", "node -e 0", 3),
  ratio("B4", "cold start, chain claude/a", "fallback chain claude/a (empty config)", "node -e 0", 3),
  ratio("B4", "cold start, no command", "fallback (no command)", "node -e 0", 3),
  ratio("B4", "cold start, run --help", "fallback run --help", "node -e 0", 3),
  ratio("B4", "cold start, list", "fallback list", "node -e 0", 3),
  ratio("B4", "cold start, status", "fallback status", "node -e 0", 3),
  ratio("B4", "cold start, waits", "fallback waits", "node -e 0", 3),
  ratio("B4", "cold start, accounts", "fallback accounts", "node -e 0", 3),
  ratio("B4", "cold start, doctor", "fallback doctor", "node -e 0", 3),
  over("B5", "HTTP, c=1", "through fallback: p50 at concurrency 1", "direct (undici): p50 at concurrency 1", 0.4),
  ratio("B5", "HTTP, c=50", "through fallback: at concurrency 50", "direct (undici): at concurrency 50", 0.5, true),
  over(
    "B6 in-process, happy",
    "@effect/ai chain, happy",
    "fallback chain (FallbackAi.layer)",
    "bare LanguageModel call",
    10
  ),
  ratio(
    "B6 in-process, failover",
    "@effect/ai chain, one failover",
    "fallback chain (FallbackAi.layer)",
    "ExecutionPlan (Layer steps)",
    1
  )
]

/** The targets read from a run's figures; those whose figures the run does not have are left out. */
export const read = (figures: ReadonlyArray<Figure>) =>
  targets.flatMap((target) => {
    const reading = target.read(figures)
    return reading === undefined ? [] : [{ bench: target.bench, what: target.what, target: target.target, ...reading }]
  })

/** A target as read in one run. */
export type Read = ReturnType<typeof read>[number]
