import * as Effect from "effect/Effect"
import type * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as Result from "effect/Result"
import * as Stream from "effect/Stream"

import type { Failed } from "../wire/dialect.js"

const tooLarge = (limit: number): Failed => ({
  status: 413,
  kind: "request_too_large",
  message: `the request body is larger than this gateway takes (${limit} bytes)`
})

const invalid = (message: string): Failed => ({ status: 400, kind: "invalid_request", message })

class TooLarge {
  readonly _tag = "TooLarge"
}

/**
 * A request's body as JSON, read no further than `limit` bytes: 413 past it (refused unread when
 * its `content-length` says so), 400 when it is not JSON.
 *
 * @internal
 */
export const jsonBody = (
  request: HttpServerRequest.HttpServerRequest,
  limit: number
): Effect.Effect<Result.Result<unknown, Failed>> => {
  const declared = Number(request.headers["content-length"])
  if (Number.isFinite(declared) && declared > limit) return Effect.succeed(Result.fail(tooLarge(limit)))
  let size = 0
  const chunks: Array<Uint8Array> = []
  return request.stream.pipe(
    Stream.runForEach((chunk) => {
      size += chunk.byteLength
      if (size > limit) return Effect.fail(new TooLarge())
      chunks.push(chunk)
      return Effect.void
    }),
    Effect.match({
      onFailure: (error) =>
        error instanceof TooLarge
          ? Result.fail(tooLarge(limit))
          : Result.fail(invalid("the request body could not be read")),
      onSuccess: () => {
        const text = Buffer.concat(chunks).toString("utf8")
        try {
          return Result.succeed(JSON.parse(text) as unknown)
        } catch {
          return Result.fail(invalid("the request body is not JSON"))
        }
      }
    })
  )
}
