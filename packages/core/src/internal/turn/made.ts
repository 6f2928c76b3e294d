import type * as Duration from "effect/Duration"
import type * as Backend from "../../Backend.js"
import type * as Failure from "../../Failure.js"
import type { Notice } from "../../Notice.js"
import type * as Place from "../../Place.js"

/*
 * The notices and events a failover makes on every turn, made as `Notice` and `Backend.Event`
 * make them (the same fields in the same order, then `_tag`), written out: `Data.taggedEnum`'s one
 * constructor spreads every kind of every enum at one site, which V8 then runs on its slow path.
 * The rest are made by `Notice`.
 */

type Why = Extract<Notice, { readonly _tag: "Skipping" }>["why"]

/** @internal */
export const moving = (
  from: Place.Place,
  to: Place.Place,
  failure: Failure.Failure,
  by: "account" | "place",
  remedy: string | undefined,
  skipped: boolean
): Notice => ({ from, to, failure, by, remedy, skipped, _tag: "Moving" })

/** A place the turn passed over, with its health's word on it. @internal */
export const skipping = (
  place: Place.Place,
  why: Why,
  until: number | undefined,
  left: Duration.Duration | undefined,
  last: Failure.Failure | undefined
): Notice => ({ place, why, until, left, last, _tag: "Skipping" })

/** A place the candidates passed over. @internal */
export const passedOver = (place: Place.Place, why: Why): Notice => ({ place, why, until: undefined, _tag: "Skipping" })

/** @internal */
export const stopping = (place: Place.Place, failure: Failure.Failure, reason: string, skipped: boolean): Notice => ({
  place,
  failure,
  reason,
  skipped,
  _tag: "Stopping"
})

/** @internal */
export const moved = (
  from: Place.Place,
  to: Place.Place,
  by: "account" | "place",
  failure: Failure.Failure
): Backend.Event => ({ from, to, by, failure, _tag: "Moved" })
