/**
 * The targets the figures are held to (issue 24's, on Effect 4), each read from the figures of the
 * same run: a ratio to a peer measured beside it (both figures printed with it), a difference from
 * it, or a bound. An absolute difference (µs, ms) given a `reference` (the baseline's figure where
 * the limit was set) is also read scaled by how much slower this machine ran the baseline, and
 * called met on that reading when only it holds.
 */
import type { Figure } from "./figures.js"

/** B7's figure: how long a cooldown written through Redis takes to be seen by another process. */
export const cooldownSeen = "Redis: a cooldown written by one process seen by another, p99"

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
  unit: string,
  reference?: number
): Target => ({
  bench,
  what,
  target: `≤ +${limit} ${unit} over ${baseline}`,
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

/** `subject` at most `limit` (in `unit`, the figure's). */
export const atMost = (bench: string, what: string, subject: string, limit: number, unit: string): Target => ({
  bench,
  what,
  target: `≤ ${limit} ${unit}`,
  read: (figures) => {
    const s = find(figures, bench, subject)
    if (s === undefined) return undefined
    return { value: `${format(s.median)} ${s.unit}`, met: s.median <= limit }
  }
})

/** The commands B4 starts, as its figures name them after `fallback `. */
const commands = [
  "--help",
  "chain X",
  "chain claude/a (empty config)",
  "(no command)",
  "run --help",
  "list",
  "status",
  "waits",
  "accounts",
  "doctor"
]

/** Issue 26's: what the gateway adds over calling the provider directly (Anthropic Messages to an Anthropic place). */
const gateway: Array<Target> = [
  over(
    "B8",
    "gateway, c=1, p50",
    "Messages through the gateway: p50 at concurrency 1",
    "Messages direct: p50 at concurrency 1",
    1,
    "ms"
  ),
  over(
    "B8",
    "gateway, c=1, p99",
    "Messages through the gateway: p99 at concurrency 1",
    "Messages direct: p99 at concurrency 1",
    5,
    "ms"
  ),
  ratio(
    "B8",
    "gateway, c=50",
    "Messages through the gateway: at concurrency 50",
    "Messages direct: at concurrency 50",
    0.8,
    true
  ),
  over(
    "B8",
    "gateway, streamed first byte",
    "Messages streamed through the gateway: first byte p50",
    "Messages streamed direct: first byte p50",
    1,
    "ms"
  )
]

/** Issue 24's targets, on Effect 4, and issue 26's. */
export const targets: Array<Target> = [
  ratio("B1", "landing turn, whole", "fallback Agent.ask (held agent)", "cockatiel retry+breaker", 1),
  ratio("B1", "landing turn, streamed", "fallback agent.turn, streamed", "fallback's session stream (bare)", 1.3),
  ratio("B2", "one failover", "fallback Agent.ask (held agent)", "cockatiel fallback", 1),
  ratio(
    "B3",
    "10k turns over 1k agents: wall",
    "fallback, 1,000 held agents: wall",
    "cockatiel fallback+breaker, one per place: wall",
    1
  ),
  ratio(
    "B3",
    "10k turns over 1k agents: heap",
    "fallback, 1,000 held agents: heap growth",
    "cockatiel fallback+breaker, one per place: heap growth",
    1
  ),
  ...commands.map((command) =>
    ratio("B4", `cold start, ${command.replace(/ \(empty config\)$/, "")}`, `fallback ${command}`, "node -e 0", 2)
  ),
  over("B5", "HTTP, c=1", "through fallback: p50 at concurrency 1", "direct (undici): p50 at concurrency 1", 0.2, "ms"),
  ratio("B5", "HTTP, c=50", "through fallback: at concurrency 50", "direct (undici): at concurrency 50", 0.8, true),
  over(
    "B6 in-process, happy",
    "effect/ai chain, happy",
    "fallback chain (FallbackAi.layer)",
    "bare LanguageModel call",
    5,
    "µs"
  ),
  ratio(
    "B6 in-process, failover",
    "effect/ai chain, one failover",
    "fallback chain (FallbackAi.layer)",
    "ExecutionPlan (Layer steps)",
    1
  ),
  atMost("B7", "a cooldown seen by another process, p99", cooldownSeen, 250, "ms"),
  ...gateway
]

/** The targets read from a run's figures; those whose figures the run does not have are left out. */
export const read = (figures: ReadonlyArray<Figure>) =>
  targets.flatMap((target) => {
    const reading = target.read(figures)
    return reading === undefined ? [] : [{ bench: target.bench, what: target.what, target: target.target, ...reading }]
  })

/** A target as read in one run. */
export type Read = ReturnType<typeof read>[number]
