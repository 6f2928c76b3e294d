import type * as AiError from "@effect/ai/AiError"
import type * as Response from "@effect/ai/Response"
import type { Backend, Failure, Place } from "@fallback/core"
import * as FiberRef from "effect/FiberRef"

/**
 * One `LanguageModel` call a chain is answering: how it was made and with what options (passed
 * unchanged to each `@effect/ai` place), and what the places it reached left for the caller.
 *
 * @internal
 */
export interface Call {
  readonly kind: "text" | "object" | "stream"
  readonly options: any
  /** Where the last attempt was made: once the call answers, where it answered. */
  at: Place.Place | undefined
  /** The whole response an `@effect/ai` place gave (`generateText`, `generateObject`). */
  response: unknown
  /** The call as text for a place that takes only text, once one is reached. */
  asked: string | undefined
  /** Whether the call is still being answered (a call that ended may still be set on its fiber). */
  open: boolean
}

/**
 * The call a chain is answering on this fiber (and the fibers it forks), for the places it
 * reaches to read with {@link callOn}: set when the call starts, a fiber ref rather than a
 * service because providing a service copies and compares the whole context, several times a
 * call's own cost. A whole call that ends is marked closed rather than unset (setting a fiber ref
 * copies the fiber's refs), unless a call it was made in (a chain inside a chain) is put back.
 *
 * @internal
 */
export const currentCall: FiberRef.FiberRef<Call | undefined> = FiberRef.unsafeMake<Call | undefined>(undefined)

/**
 * The call being answered on `fiber`, if one is.
 *
 * @internal
 */
export const callOn = (fiber: { getFiberRef<A>(ref: FiberRef.FiberRef<A>): A }): Call | undefined => {
  const call = fiber.getFiberRef(currentCall)
  return call !== undefined && call.open ? call : undefined
}

/**
 * The response parts an `@effect/ai` place streamed, by the event that carried them through the
 * engine (events pass through it as they are).
 *
 * @internal
 */
export const carried = new WeakMap<Backend.Event, ReadonlyArray<Response.AnyPart>>()

/**
 * The error an `@effect/ai` place failed with, by the failure it was read as, so a chain that
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
 * The backends whose places are `@effect/ai` models: they take a call's options as they are, so
 * the call is not rewritten as text for them.
 *
 * @internal
 */
export const models = new WeakSet<object>()
