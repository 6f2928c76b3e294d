/**
 * When a provider's request is a span of its own: only where the program installed a tracer.
 * Effect's native tracer keeps its spans nowhere (its docs name this very check as the way to
 * skip work only a tracing backend could see), so under it a request is no span and carries no
 * trace headers. Both transports ask this one question; neither is chosen by it.
 */
import type * as Fiber from "effect/Fiber"
import * as Headers from "effect/http/Headers"
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

/**
 * Every header of a request or a response as an attribute of its span, as the HttpClient records
 * them where its header filter takes all: a name `Headers.CurrentRedactedNames` holds (core's
 * allow-list inside an attempt) shows `<redacted>`.
 *
 * @internal
 */
export const headerAttributes = (
  span: Tracer.Span,
  phase: "request" | "response",
  headers: Readonly<Record<string, string>>,
  fiber: Fiber.Fiber<unknown, unknown>
): void => {
  const redacted = fiber.getRef(Headers.CurrentRedactedNames)
  for (const name in headers) {
    const lower = name.toLowerCase()
    span.attribute(
      `http.${phase}.header.${lower}`,
      Headers.isRedactedName(lower, redacted) ? "<redacted>" : headers[name]
    )
  }
}
