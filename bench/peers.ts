/**
 * The peers the engine is measured against, each calling the same in-process model: a function
 * that answers at once (`answer`) or fails at once (`refuse`).
 */
import { circuitBreaker, ConsecutiveBreaker, fallback, handleAll, retry, wrap } from "cockatiel"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as ExecutionPlan from "effect/ExecutionPlan"
import * as Layer from "effect/Layer"

/** The model answering at once. */
export const answer = () => Promise.resolve("ok")

/** The model failing at once. */
export const refuse = () => Promise.reject(new Error("down"))

/** The model as an Effect, answering. */
export const answerEffect = Effect.tryPromise(answer)

/** The model as an Effect, failing. */
export const refuseEffect = Effect.tryPromise(refuse)

/** The model as a service, for ExecutionPlan's steps to provide. */
export class Model extends Context.Service<Model, { readonly ask: Effect.Effect<string, unknown> }>()("bench/Model") {}

/** Asks whichever model the plan's step provided. */
export const ask = Effect.flatMap(Model, (model) => model.ask)

const up = { ask: answerEffect }
const down = { ask: refuseEffect }

/** ExecutionPlan over three places, with Layer steps (`downFirst`: the first place fails). */
export const layerPlan = (downFirst: boolean) =>
  ExecutionPlan.make(
    { provide: Layer.succeed(Model, downFirst ? down : up) },
    { provide: Layer.succeed(Model, up) },
    { provide: Layer.succeed(Model, up) }
  )

/** ExecutionPlan over three places, with Context steps. */
export const contextPlan = (downFirst: boolean) =>
  ExecutionPlan.make(
    { provide: Context.make(Model, downFirst ? down : up) },
    { provide: Context.make(Model, up) },
    { provide: Context.make(Model, up) }
  )

/** cockatiel's retry (2 tries) wrapped round a breaker (5 in a row), as one place would use. */
export const retryBreaker = () =>
  wrap(
    retry(handleAll, { maxAttempts: 1 }),
    circuitBreaker(handleAll, { halfOpenAfter: 60_000, breaker: new ConsecutiveBreaker(5) })
  )

/** cockatiel's fallback to a second place. */
export const fallbackTo = (second: () => Promise<string>) => fallback(handleAll, second)
