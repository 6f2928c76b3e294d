/** Timing loops: a turn taken n times in a row, in one Effect loop or one async loop. */
import * as Effect from "effect/Effect"
import { repetitions } from "./figures.js"

/** µs per run of `turn`, taken `n` times in a row inside one Effect loop, once per repetition after a warm-up. */
export const inEffect = <E, R>(n: number, turn: Effect.Effect<unknown, E, R>): Effect.Effect<Array<number>, E, R> =>
  Effect.gen(function*() {
    const samples: Array<number> = []
    for (let r = -1; r < repetitions; r++) {
      const start = performance.now()
      for (let i = 0; i < n; i++) yield* turn
      if (r >= 0) samples.push(((performance.now() - start) * 1000) / n)
    }
    return samples
  })

/** µs per call of `turn`, awaited `n` times in a row, once per repetition after a warm-up. */
export const inPromises = async (n: number, turn: () => Promise<unknown>): Promise<Array<number>> => {
  const samples: Array<number> = []
  for (let r = -1; r < repetitions; r++) {
    const start = performance.now()
    for (let i = 0; i < n; i++) await turn()
    if (r >= 0) samples.push(((performance.now() - start) * 1000) / n)
  }
  return samples
}
