import * as Agent from "@fallback/core/Agent"
import * as Backend from "@fallback/core/Backend"
import type * as Failure from "@fallback/core/Failure"
import type * as Place from "@fallback/core/Place"
import * as AiError from "effect/ai/AiError"
import * as LanguageModel from "effect/ai/LanguageModel"
import * as Response from "effect/ai/Response"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

import type * as FallbackAi from "../FallbackAi.js"
import { gaveUp } from "./aiFailure.js"
import { annotated, modelOf, noteOf, onSpan, usageOf } from "./answer.js"
import { type Call, currentCall, Passed, raised } from "./call.js"
import { reference } from "./generation.js"
import { flatten } from "./prompt.js"
import { statelessBackends } from "./stateless.js"
import { streamed } from "./streamed.js"

/**
 * What a call that failed fails with: the chain's giving up as an `AiError` (the last place's own,
 * masked, with the failure noted on its reason; for a streamed answer cut after content reached
 * the caller, the failure that cut it, with what was delivered), an error from the caller's own
 * code (carried as a `Passed` defect) as it was, anything else as it is.
 */
const failedCall =
  (method: string) => (cause: Cause.Cause<Failure.Failure | Agent.Cut>): Effect.Effect<never, unknown> => {
    const failure = Cause.findErrorOption(cause)
    if (Option.isSome(failure)) {
      const error = failure.value
      if (error._tag !== "Cut") return Effect.fail(gaveUp(method, error, raised.get(error)))
      return Effect.fail(gaveUp(method, error.failure, raised.get(error.failure), {
        delivered: error.delivered,
        continuation: error.continuation,
        description: error.message
      }))
    }
    for (const reason of cause.reasons) {
      if (reason._tag === "Die" && reason.defect instanceof Passed) return Effect.fail(reason.defect.error)
    }
    return Effect.failCause(cause)
  }

/** The parts of an answer from a place that speaks text only. */
const partsOf = (events: ReadonlyArray<Backend.Event>): Array<Response.AnyPart> => [
  Response.makePart("text", { text: Backend.textOf(events) }),
  Response.makePart("finish", {
    reason: "stop",
    usage: usageOf(events.find((event) => event._tag === "Result"))
  } as any)
]

const modelIn = (events: ReadonlyArray<Backend.Event>): string | undefined => {
  const result = events.find((event) => event._tag === "Result")
  return result?._tag === "Result" ? result.model : undefined
}

const noted = (parts: ReadonlyArray<Response.AnyPart>, note: FallbackAi.Moved) =>
  Effect.as(
    onSpan(note, parts.find((part) => part.type === "finish")),
    parts.map((part) => part.type === "finish" || part.type === "response-metadata" ? annotated(part, note) : part)
  )

const answered = (call: Call, start: Place.Place, events: ReadonlyArray<Backend.Event>): Effect.Effect<any, any> => {
  if (call.response !== undefined) {
    const response = call.response as LanguageModel.GenerateTextResponse<any>
    const note = noteOf(start, call.at, modelOf(response.content) ?? modelIn(events))
    return Effect.map(
      noted(response.content, note),
      (content) =>
        response instanceof LanguageModel.GenerateObjectResponse
          ? new LanguageModel.GenerateObjectResponse(response.value, content as any)
          : new LanguageModel.GenerateTextResponse(content as any)
    )
  }
  return Effect.flatMap(noted(partsOf(events), noteOf(start, call.at, modelIn(events))), (parts) => {
    if (call.kind === "text") return Effect.succeed(new LanguageModel.GenerateTextResponse(parts as any))
    const text = Backend.textOf(events)
    return Schema.decodeUnknownEffect(Schema.fromJsonString(call.options.schema as Schema.Codec<unknown, unknown>))(
      text
    ).pipe(
      Effect.mapError((error) =>
        AiError.make({
          module: "FallbackAi",
          method: "generateObject",
          reason: AiError.StructuredOutputError.fromSchemaError(error, text)
        })
      ),
      Effect.map((value) => new LanguageModel.GenerateObjectResponse(value, parts as any))
    )
  })
}

/** @internal */
export const make = Effect.fnUntraced(function*(place: Place.Place | string, config: FallbackAi.Config) {
  const backends = yield* Backend.Backends
  const agent = yield* Agent.make(place, config.settings, config.options).pipe(
    Effect.provideService(Backend.Backends, statelessBackends(backends))
  )

  // A whole reply hands nothing to its caller before it is whole: an answer that breaks off at a
  // place fails over as one that never began, and its part is not kept.
  const whole = (kind: "text" | "object", method: string) => (options: any): Effect.Effect<any, any> =>
    Effect.flatMap(Effect.all([agent.at, Effect.service(reference)]), ([start, generation]) => {
      const call: Call = {
        kind,
        options,
        generation,
        at: undefined,
        response: undefined,
        asked: undefined,
        open: true
      }
      return agent.reply(flatten(options.prompt)).pipe(
        Effect.matchCauseEffect({
          onFailure: (cause) => {
            call.open = false
            return failedCall(method)(cause)
          },
          onSuccess: (events) => {
            call.open = false
            return answered(call, start, events)
          }
        }),
        Effect.provideService(currentCall, call),
        // no stack captured for the span: a new Error each call, ~1 % of a gateway request
        Effect.withSpan(`FallbackAi.${method}`, undefined, { captureStackTrace: false })
      )
    })

  return {
    [LanguageModel.TypeId]: LanguageModel.TypeId,
    generateText: whole("text", "generateText"),
    generateObject: whole("object", "generateObject"),
    streamText: (options: any) => streamed(agent, options, failedCall("streamText"))
  } as unknown as LanguageModel.LanguageModel
})
