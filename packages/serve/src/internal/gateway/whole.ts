import * as Generation from "@fallback/ai/Generation"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as HttpServerResponse from "effect/http/HttpServerResponse"

import { type Asked, logged, optionsOf, startName } from "./asked.js"
import { failure, idFor, noteOf, placeHeaders, usageOf, whereFrom } from "./respond.js"
import { gaveUp, modelFor } from "./served.js"

/** A call answered whole: the chain's answer in the wire's body, or its failure in the wire's error. @internal */
export const whole = (asked: Asked): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
  const { begun, call, conversation, dialect, served, start } = asked
  return Effect.gen(function*() {
    const { kept, model } = yield* modelFor(served, conversation)
    const response = yield* model.generateText(optionsOf(call) as any).pipe(Generation.with(call.generation))
    const parts = response.content
    const note = noteOf(parts)
    const created = Math.floor((yield* Clock.currentTimeMillis) / 1000)
    const body = dialect.whole(
      parts,
      { model: note?.place ?? startName(asked), id: idFor(dialect), created },
      asked.call
    )
    yield* logged(served, begun, {
      status: 200,
      model: call.model,
      ...whereFrom(note, startName(asked)),
      conversation: conversation.id.slice(0, 12),
      kept,
      stream: false,
      usage: usageOf(parts)
    })
    return HttpServerResponse.jsonUnsafe(body, { headers: placeHeaders(note, startName(asked)) })
  }).pipe(
    Effect.scoped,
    Effect.onInterrupt(() =>
      logged(served, begun, {
        status: 499,
        model: call.model,
        conversation: conversation.id.slice(0, 12),
        stream: false,
        error: "the client went away"
      })
    ),
    Effect.catch((error) =>
      Effect.flatMap(gaveUp(served, start, error), (failed) =>
        Effect.as(
          logged(served, begun, {
            status: failed.status,
            model: call.model,
            conversation: conversation.id.slice(0, 12),
            stream: false,
            error: failed.kind
          }),
          failure(dialect, failed)
        ))
    )
  )
}
