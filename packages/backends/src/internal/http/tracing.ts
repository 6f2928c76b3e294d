/**
 * When a provider's request is a span of its own: only where the program installed a tracer.
 * Effect's native tracer keeps its spans nowhere (its docs name this very check as the way to
 * skip work only a tracing backend could see), so under it a request is no span and carries no
 * trace headers. Both transports ask this one question; neither is chosen by it.
 */
import type * as Fiber from "effect/Fiber"
import * as Tracer from "effect/Tracer"

/**
 * Whether the fiber's tracer is one a program installed.
 *
 * @internal
 */
export const exported = (fiber: Fiber.Fiber<unknown, unknown>): boolean =>
  fiber.getRef(Tracer.Tracer) !== Tracer.nativeTracer

/**
 * A request's span name, as Effect 3's HttpClient named it.
 *
 * @internal
 */
export const spanName = (method: string): string => `http.client ${method}`
