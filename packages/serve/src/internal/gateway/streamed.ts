import * as Generation from "@fallback/ai/Generation"
import type * as Response from "effect/ai/Response"
import type * as Arr from "effect/Array"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as Option from "effect/Option"
import * as Pull from "effect/Pull"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"

import type { Failed } from "../wire/dialect.js"
import { type Asked, logged, optionsOf, startName } from "./asked.js"
import { failedOf } from "./failed.js"
import { joiner } from "./joined.js"
import { encode, failure, idFor, noteOf, placeHeaders, usageOf, whereFrom } from "./respond.js"
import { gaveUp, modelFor } from "./served.js"

const concat = (a: Uint8Array, b: Uint8Array): Uint8Array => {
  if (a.byteLength === 0) return b
  const out = new Uint8Array(a.byteLength + b.byteLength)
  out.set(a)
  out.set(b, a.byteLength)
  return out
}

const errorOf = (cause: Cause.Cause<unknown>): unknown => {
  const found = Cause.findErrorOption(cause)
  return found._tag === "Some" ? found.value : Cause.squash(cause)
}

/**
 * A call answered as a stream. Its first part is pulled before anything is written, so a chain
 * that gives up before its first content is answered with the wire's error and status; after it,
 * the wire's frames, and a failure is the wire's in-stream error. The upstream request is held in
 * a scope the response's body closes, so a client that hangs up ends it.
 *
 * @internal
 */
export const streamed = (asked: Asked): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
  const { begun, call, conversation, dialect, served, start } = asked
  const base = { model: call.model, conversation: conversation.id.slice(0, 12), stream: true }
  return Effect.uninterruptibleMask((restore) =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      // The request's own scope closes once its response is sent, or when it never is: the upstream with it.
      const request = yield* Effect.serviceOption(Scope.Scope)
      if (Option.isSome(request)) yield* Scope.addFinalizer(request.value, Scope.close(scope, Exit.void))
      type Pulled = Pull.Pull<Arr.NonEmptyReadonlyArray<Response.AnyPart>, unknown>
      type Opened = { readonly pull: Pulled; readonly first: ReadonlyArray<Response.AnyPart>; readonly kept: boolean }
      // Interruptible only while it waits on the chain: a client gone before the first part still closes the scope.
      const opened: Exit.Exit<Opened, unknown> = yield* restore(
        Effect.gen(function*() {
          const { kept, model } = yield* modelFor(served, conversation).pipe(Scope.provide(scope))
          const parts = model.streamText(optionsOf(call) as any).pipe(
            Stream.provideService(Generation.Generation, call.generation)
          ) as Stream.Stream<Response.AnyPart, unknown>
          const pull: Pulled = yield* Stream.toPull(parts).pipe(Scope.provide(scope))
          return { pull, first: yield* pull, kept }
        })
      ).pipe(Effect.exit)
      if (Exit.isFailure(opened)) {
        yield* Scope.close(scope, Exit.void)
        if (Cause.hasInterruptsOnly(opened.cause)) {
          yield* logged(served, begun, { ...base, status: 499, error: "the client went away" })
          return yield* Effect.interrupt
        }
        const failed: Failed = Pull.isDoneCause(opened.cause)
          ? { status: 502, kind: "api_error", message: "the chain's answer ended before it began" }
          : yield* gaveUp(served, start, errorOf(opened.cause))
        yield* logged(served, begun, { ...base, status: failed.status, error: failed.kind })
        return failure(dialect, failed)
      }
      const { first, kept, pull } = opened.value
      const note = noteOf(first)
      const place = note?.place ?? startName(asked)
      const created = Math.floor((yield* Clock.currentTimeMillis) / 1000)
      const writer = dialect.stream({ model: place, id: idFor(dialect), created }, call)
      const joined = joiner()
      const write = (parts: ReadonlyArray<Response.AnyPart>) =>
        encode(parts.flatMap((part) => writer.part(part as any)))
      const seen: Array<Response.AnyPart> = []
      let error: string | undefined
      // one write a chunk the chain gave (its parts' frames together), not one a part
      const chunkOf = (parts: ReadonlyArray<Response.AnyPart>): Uint8Array => {
        const out: Array<Response.AnyPart> = []
        for (const part of parts) {
          if (part.type === "finish") seen.push(part)
          out.push(...joined.part(part))
        }
        return write(out)
      }
      // One pull does what concat + catchCause + filter stages would: the first chunk, the rest, then the
      // wire's end, or its in-stream error (whatever failed past the first part), empty writes skipped.
      let state: "first" | "rest" | "over" = "first"
      const ended = Effect.sync(() => {
        state = "over"
        return concat(write(joined.flush()), encode(writer.end()))
      })
      const step: Effect.Effect<Uint8Array, unknown> = Effect.suspend(() => {
        if (state === "over") return Cause.done()
        if (state === "rest") {
          return Effect.catchCause(
            Effect.map(pull, chunkOf),
            (cause) => Pull.isDoneCause(cause) ? ended : Effect.failCause(cause)
          )
        }
        state = "rest"
        return Effect.succeed(chunkOf(first))
      }).pipe(Effect.catchCause((cause) =>
        Pull.isDoneCause(cause) || Cause.hasInterruptsOnly(cause)
          ? Effect.failCause(cause)
          : Effect.map(Clock.currentTimeMillis, (now) => {
            state = "over"
            const failed = failedOf(errorOf(cause), now)
            error = failed.kind
            return concat(write(joined.flush()), encode(writer.failed(failed)))
          })
      ))
      const next: Pull.Pull<Arr.NonEmptyReadonlyArray<Uint8Array>, unknown> = Effect.flatMap(
        step,
        (bytes) => bytes.byteLength > 0 ? Effect.succeed([bytes]) : next
      )
      const body = Stream.fromPull(Effect.succeed(next)).pipe(
        Stream.onExit((exit) =>
          Effect.andThen(
            logged(served, begun, {
              ...base,
              status: 200,
              ...whereFrom(noteOf(seen) ?? note, place),
              kept,
              usage: usageOf(seen),
              error: Exit.isSuccess(exit) ? error : "the client went away"
            }),
            Scope.close(scope, Exit.void)
          )
        )
      )
      return HttpServerResponse.stream(body, {
        contentType: "text/event-stream",
        headers: { ...placeHeaders(note, startName(asked)), "cache-control": "no-cache" }
      })
    })
  )
}
