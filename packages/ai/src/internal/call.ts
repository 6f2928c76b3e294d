import type * as Backend from "@fallback/core/Backend"
import type * as Failure from "@fallback/core/Failure"
import type * as Place from "@fallback/core/Place"
import type * as AiError from "effect/ai/AiError"
import type * as Response from "effect/ai/Response"
import * as Context from "effect/Context"
import type * as Fiber from "effect/Fiber"

import type * as Generation from "../Generation.js"

/**
 * One `LanguageModel` call a chain is answering: how it was made and with what options (passed
 * unchanged to each `effect/ai` place), and what the places it reached left for the caller.
 *
 * @internal
 */
export interface Call {
  readonly kind: "text" | "object" | "stream"
  readonly options: any
  /** The generation options of the caller's fiber, for every place the call reaches. */
  readonly generation: Generation.Options
  /** Where the last attempt was made: once the call answers, where it answered. */
  at: Place.Place | undefined
  /** The whole response an `effect/ai` place gave (`generateText`, `generateObject`). */
  response: unknown
  /** The call as text for a place that takes only text, once one is reached. */
  asked: string | undefined
  /** Whether the call is still being answered (a call that ended may still be set on its fiber). */
  open: boolean
}

/**
 * The call a chain is answering on this fiber (and the fibers it forks), for the places it
 * reaches to read with {@link callOn}: provided while the call runs. A call that ended is marked
 * closed, for a fiber forked in it that outlives it (a layer's own fiber).
 *
 * @internal
 */
export const currentCall: Context.Reference<Call | undefined> = Context.Reference<Call | undefined>(
  "@fallback/ai/currentCall",
  { defaultValue: () => undefined }
)

/**
 * The call being answered on `fiber`, if one is.
 *
 * @internal
 */
export const callOn = (fiber: Fiber.Fiber<unknown, unknown>): Call | undefined => {
  const call = fiber.getRef(currentCall)
  return call !== undefined && call.open ? call : undefined
}

/**
 * The response parts an `effect/ai` place streamed, by the event that carried them through the
 * engine (events pass through it as they are).
 *
 * @internal
 */
export const carried = new WeakMap<Backend.Event, ReadonlyArray<Response.AnyPart>>()

/**
 * The error an `effect/ai` place failed with, by the failure it was read as, so a chain that
 * gives up fails with it (masked then: it holds the request's credentials).
 *
 * @internal
 */
export const raised = new WeakMap<Failure.Failure, AiError.AiError>()

/**
 * An error from a caller's own code run at a place (a tool's handler), carried through the engine
 * as a defect so that it neither counts against the place nor moves the call.
 *
 * @internal
 */
export class Passed {
  constructor(readonly error: unknown) {}
}

/**
 * The backends whose places are `effect/ai` models: they take a call's options as they are, so
 * the call is not rewritten as text for them.
 *
 * @internal
 */
export const models = new WeakSet<object>()
