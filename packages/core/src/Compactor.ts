/**
 * What shortens a conversation that no longer fits its model's context window. Given one, a turn
 * that fails with ContextTooLong compacts and sends again; when nothing compacts, the oldest
 * exchange is trimmed and it sends again; it fails only when nothing is left to trim. Without one,
 * ContextTooLong is taken once whatever a chain says.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Option from "effect/Option"
import type * as Backend from "./Backend.js"

/**
 * What a compactor does: a shorter history for a prompt, or none when it cannot compact any further.
 *
 * @since 0.1.0
 * @category models
 */
export interface Service {
  readonly compact: (prompt: Backend.Prompt) => Effect.Effect<Option.Option<ReadonlyArray<Backend.Exchange>>>
}

/**
 * Compacts a prompt's history: a shorter history, or none when it cannot compact any further.
 *
 * @since 0.1.0
 * @category services
 */
export class Compactor extends Context.Service<Compactor, Service>()("@fallback/core/Compactor") {
  /**
   * A compactor that shortens with `compact`.
   *
   * @since 0.1.0
   */
  static readonly layer = (compact: Service["compact"]): Layer.Layer<Compactor> =>
    Layer.succeed(Compactor, Compactor.of({ compact }))
}
