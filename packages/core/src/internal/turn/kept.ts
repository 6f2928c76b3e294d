import type * as Duration from "effect/Duration"
import type * as Option from "effect/Option"
import type * as Agent from "../../Agent.js"
import type * as Backend from "../../Backend.js"
import type * as Place from "../../Place.js"

/*
 * What a turn keeps to at each kind of place, what a streamed turn has delivered, and the result
 * as the caller gets it.
 */

/**
 * The first byte's and the stall's limits at a kind of place: the kind's where the options set
 * them, else the agent's `firstByte` and `idle`.
 *
 * @internal
 */
export interface Kept {
  readonly firstByte: Option.Option<Duration.Duration>
  readonly idle: Option.Option<Duration.Duration>
}

/** @internal */
export const keptAt = (options: Agent.Options, kind: Backend.Kind): Kept => {
  const limits = options.limits?.[kind]
  return limits === undefined || (limits.firstByte === undefined && limits.stall === undefined)
    ? options
    : { firstByte: limits.firstByte ?? options.firstByte, idle: limits.stall ?? options.idle }
}

/**
 * What a streamed turn has handed its caller so far, across the places that continued it: the
 * text, and whether a tool was used (a turn inside a tool call is never continued elsewhere).
 *
 * @internal
 */
export interface Delivered {
  text: string
  tool: boolean
}

/**
 * A result stamped with the model that answered (the place's, where the backend did not say),
 * and, for a continuation, with the whole answer: what was delivered before it, then its own.
 *
 * @internal
 */
export const answeredBy = (
  event: Extract<Backend.Event, { readonly _tag: "Result" }>,
  place: Place.Place,
  prefill?: string
): Backend.Event => ({
  text: prefill === undefined ? event.text : prefill + event.text,
  usage: event.usage,
  model: event.model ?? place.model,
  _tag: "Result"
})
