import * as Agent from "@fallback/core/Agent"
import * as Backend from "@fallback/core/Backend"
import type * as Failure from "@fallback/core/Failure"
import * as Place from "@fallback/core/Place"
import * as AiError from "effect/ai/AiError"
import * as LanguageModel from "effect/ai/LanguageModel"
import * as Response from "effect/ai/Response"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"

import type * as FallbackAi from "../FallbackAi.js"
import { gaveUp } from "./aiFailure.js"
import { type Call, carried, currentCall, Passed, raised } from "./call.js"
import { flatten } from "./prompt.js"
import { statelessBackends } from "./stateless.js"

/**
 * What a call that failed fails with: the chain's giving up as an `AiError` (the last place's own,
 * masked, with the failure noted on its reason), an error from the caller's own code (carried as
 * a `Passed` defect) as it was, anything else as it is.
 */
const failedCall = (method: string) => (cause: Cause.Cause<Failure.Failure>): Effect.Effect<never, unknown> => {
  const failure = Cause.findErrorOption(cause)
  if (Option.isSome(failure)) return Effect.fail(gaveUp(method, failure.value, raised.get(failure.value)))
  for (const reason of cause.reasons) {
    if (reason._tag === "Die" && reason.defect instanceof Passed) return Effect.fail(reason.defect.error)
  }
  return Effect.failCause(cause)
}

/** Where a call was answered, as the caller reads it on the finish part's metadata. */
const annotation = (start: Place.Place, at: Place.Place | undefined): FallbackAi.Moved | undefined =>
  at === undefined || at === start || Place.format(at) === Place.format(start)
    ? undefined
    : { place: Place.format(at), from: Place.format(start), moved: true }

const annotated = (part: Response.AnyPart, note: FallbackAi.Moved): Response.AnyPart =>
  ({ ...part, metadata: { ...part.metadata, fallback: note } }) as Response.AnyPart

const usageOf = (events: ReadonlyArray<Backend.Event>) => {
  const result = events.find((event) => event._tag === "Result")
  return new Response.Usage({
    inputTokens: { total: result?.usage.input },
    outputTokens: { total: result?.usage.output }
  } as any)
}

/** The parts of an answer from a place that speaks text only. */
const partsOf = (events: ReadonlyArray<Backend.Event>): Array<Response.AnyPart> => [
  Response.makePart("text", { text: Backend.textOf(events) }),
  Response.makePart("finish", { reason: "stop", usage: usageOf(events) } as any)
]

const answered = (call: Call, start: Place.Place, events: ReadonlyArray<Backend.Event>): Effect.Effect<any, any> => {
  const note = annotation(start, call.at)
  if (call.response !== undefined) {
    const response = call.response as LanguageModel.GenerateTextResponse<any>
    if (note === undefined) return Effect.succeed(response)
    const content = response.content.map((part) => part.type === "finish" ? annotated(part, note) : part)
    return Effect.succeed(
      response instanceof LanguageModel.GenerateObjectResponse
        ? new LanguageModel.GenerateObjectResponse(response.value, content as any)
        : new LanguageModel.GenerateTextResponse(content as any)
    )
  }
  const parts = partsOf(events).map((part) =>
    note !== undefined && part.type === "finish" ? annotated(part, note) : part
  )
  if (call.kind === "text") return Effect.succeed(new LanguageModel.GenerateTextResponse(parts as any))
  const text = Backend.textOf(events)
  return Schema.decodeUnknownEffect(Schema.fromJsonString(call.options.schema as Schema.Codec<unknown, unknown>))(text)
    .pipe(
      Effect.mapError((error) =>
        AiError.make({
          module: "FallbackAi",
          method: "generateObject",
          reason: AiError.StructuredOutputError.fromSchemaError(error, text)
        })
      ),
      Effect.map((value) => new LanguageModel.GenerateObjectResponse(value, parts as any))
    )
}

const streamed = (agent: Agent.Agent, options: any): Stream.Stream<any, any> =>
  Stream.unwrap(Effect.map(agent.at, (start) => {
    const call: Call = { kind: "stream", options, at: undefined, response: undefined, asked: undefined, open: true }
    let texted = false
    let result: Backend.Event | undefined = undefined
    const partsFor = (event: Backend.Event): ReadonlyArray<Response.AnyPart> => {
      const parts = carried.get(event)
      if (parts !== undefined) {
        const note = parts[0]!.type === "finish" ? annotation(start, call.at) : undefined
        return note === undefined ? parts : [annotated(parts[0]!, note)]
      }
      switch (event._tag) {
        case "Text": {
          const delta = Response.makePart("text-delta", { id: "0", delta: event.text })
          if (texted) return [delta]
          texted = true
          return [Response.makePart("text-start", { id: "0" }), delta]
        }
        case "Result": {
          result = event
          if (texted) return []
          texted = true
          return [
            Response.makePart("text-start", { id: "0" }),
            Response.makePart("text-delta", { id: "0", delta: event.text })
          ]
        }
        default:
          return []
      }
    }
    const ending = Stream.suspend(() => {
      if (!texted) return Stream.empty
      const note = annotation(start, call.at)
      const finish = Response.makePart(
        "finish",
        { reason: "stop", usage: usageOf(result === undefined ? [] : [result]) } as any
      )
      return Stream.make(
        Response.makePart("text-end", { id: "0" }),
        note === undefined ? finish : annotated(finish, note)
      )
    })
    return agent.turn(flatten(options.prompt)).pipe(
      Stream.flatMap((event) => Stream.fromArray(partsFor(event))),
      Stream.concat(ending),
      Stream.catchCause((cause) => Stream.fromEffect(failedCall("streamText")(cause))),
      Stream.ensuring(Effect.sync(() => {
        call.open = false
      })),
      Stream.provideService(currentCall, call)
    )
  }))

/** @internal */
export const make = Effect.fnUntraced(function*(place: Place.Place | string, config: FallbackAi.Config) {
  const backends = yield* Backend.Backends
  const agent = yield* Agent.make(place, config.settings, config.options).pipe(
    Effect.provideService(Backend.Backends, statelessBackends(backends))
  )

  const whole = (kind: "text" | "object", method: string) => (options: any): Effect.Effect<any, any> =>
    Effect.flatMap(agent.at, (start) => {
      const call: Call = { kind, options, at: undefined, response: undefined, asked: undefined, open: true }
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
        Effect.provideService(currentCall, call)
      )
    })

  return {
    [LanguageModel.TypeId]: LanguageModel.TypeId,
    generateText: whole("text", "generateText"),
    generateObject: whole("object", "generateObject"),
    streamText: (options: any) => streamed(agent, options)
  } as unknown as LanguageModel.LanguageModel
})
