/**
 * Counting the fibers an effect starts: what a test or a bench checks when a turn must fork none.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Supervisor from "effect/Supervisor"

class Started extends Supervisor.AbstractSupervisor<number> {
  count = 0
  get value() {
    return Effect.sync(() => this.count)
  }
  override onStart() {
    this.count += 1
  }
}

/**
 * Runs an effect and counts the fibers started while it ran (itself not included).
 *
 * @since 0.1.0
 * @category utils
 */
export const started = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<number, E, R> =>
  Effect.suspend(() => {
    const counted = new Started()
    return Effect.map(Effect.supervised(effect, counted), () => counted.count)
  })
