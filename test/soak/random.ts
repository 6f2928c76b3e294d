/** A seeded random source, so a failing trial replays from its seed. */

/** Draws from a seed (mulberry32). */
export interface Random {
  /** A number in [0, 1). */
  readonly next: () => number
  /** An integer in [low, high]. */
  readonly int: (low: number, high: number) => number
  /** One of the items. */
  readonly pick: <A>(items: ReadonlyArray<A>) => A
  /** True with probability `p`. */
  readonly chance: (p: number) => boolean
}

/** A random source from `seed`. */
export const random = (seed: number): Random => {
  let state = seed >>> 0
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (low: number, high: number) => low + Math.floor(next() * (high - low + 1))
  return {
    next,
    int,
    pick: (items) => items[int(0, items.length - 1)]!,
    chance: (p) => next() < p
  }
}
