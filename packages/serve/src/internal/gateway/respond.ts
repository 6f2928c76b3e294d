import type * as FallbackAi from "@fallback/ai/FallbackAi"
import type * as Response from "effect/ai/Response"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import { randomBytes } from "node:crypto"

import type { Dialect, Failed, Frame } from "../wire/dialect.js"

/** An error response in a wire's own shape, with `Retry-After` where the wait is known. @internal */
export const failure = (dialect: Pick<Dialect, "error">, failed: Failed): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.jsonUnsafe(dialect.error(failed), {
    status: failed.status,
    headers: failed.retryAfter === undefined ? {} : { "retry-after": String(failed.retryAfter) }
  })

/** The error shape of a request no wire is named for (an unknown route). @internal */
export const plain: Pick<Dialect, "error"> = {
  error: (failed) => ({ error: { type: failed.kind, message: failed.message } })
}

/** Where an answer was answered, as the finish part (or, streamed, the response-metadata part) notes it. @internal */
export const noteOf = (parts: ReadonlyArray<Response.AnyPart>): FallbackAi.Moved | undefined => {
  for (const part of parts) {
    if (part.type === "response-metadata" || part.type === "finish") {
      const note = (part.metadata as { readonly fallback?: FallbackAi.Moved } | undefined)?.fallback
      if (note !== undefined) return note
    }
  }
  return undefined
}

/** Where an answer came from, as its log line says it. @internal */
export const whereFrom = (
  note: FallbackAi.Moved | undefined,
  start: string
): { readonly place: string; readonly moved: boolean; readonly from?: string | undefined } =>
  note?.moved === true
    ? { place: note.place, moved: true, from: note.from }
    : { place: note?.place ?? start, moved: false }

/** The headers that say where an answer came from. @internal */
export const placeHeaders = (
  note: FallbackAi.Moved | undefined,
  start: string
): Record<string, string> => {
  const place = note?.place ?? start
  return note?.moved === true ? { "x-fallback-place": place, "x-fallback-from": note.from } : {
    "x-fallback-place": place
  }
}

const encoder = new TextEncoder()

/** Server-sent events as bytes (none for none). @internal */
export const encode = (frames: ReadonlyArray<Frame>): Uint8Array => {
  let text = ""
  for (const frame of frames) {
    text += frame.event === undefined ? `data: ${frame.data}\n\n` : `event: ${frame.event}\ndata: ${frame.data}\n\n`
  }
  return encoder.encode(text)
}

const prefixes: Record<Dialect["name"], string> = {
  "anthropic-messages": "msg_",
  "openai-chat": "chatcmpl-",
  "openai-responses": "resp_"
}

/** A response id in the wire's own form. @internal */
export const idFor = (dialect: Dialect): string => prefixes[dialect.name] + randomBytes(12).toString("hex")

/** The usage a finish part carries, as a log line says it. @internal */
export const usageOf = (
  parts: ReadonlyArray<Response.AnyPart>
): { readonly input: number; readonly output: number } | undefined => {
  const finish = parts.find((part) => part.type === "finish")
  if (finish === undefined || finish.type !== "finish") return undefined
  return { input: finish.usage.inputTokens.total ?? 0, output: finish.usage.outputTokens.total ?? 0 }
}
