/**
 * Counting the fibers an effect starts: what a test or a bench checks when a turn must fork none.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"

/**
 * Runs an effect and counts the fibers started while it ran (itself not included).
 *
 * @since 0.1.0
 * @category utils
 */
export const started = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<number, E, R> =>
  Effect.suspend(() => {
    let count = 0
    // The runtime tells this service of every fiber made under it: the one running `effect` is not.
    const counter: Metric.FiberRuntimeMetricsService = {
      recordFiberStart: () => {
        count += 1
      },
      recordFiberEnd: () => {}
    }
    return Effect.map(Effect.provideService(effect, Metric.FiberRuntimeMetrics, counter), () => count)
  })
