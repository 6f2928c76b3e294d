import * as AiError from "@effect/ai/AiError"
import * as LanguageModel from "@effect/ai/LanguageModel"
import * as Response from "@effect/ai/Response"
import { Agent, Backend, type Failure, Place } from "@fallback/core"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as JSONSchema from "effect/JSONSchema"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import type * as FallbackAi from "../FallbackAi.js"
import { type Call, carried, CurrentCall, Passed, raised } from "./call.js"
import { flatten } from "./prompt.js"

/** Notes at each attempt where a call went, so the call can tell the caller where it was answered. */
const noted = (place: Place.Place) => Effect.map(Effect.serviceOption(CurrentCall), (call) => {
  if (Option.isSome(call)) call.value.at = place
})

/**
 * A backend as a chain's place: each call carries its whole conversation in its prompt, so no
 * session keeps exchanges of its own, and each attempt notes where it went.
 */
const statelessBackend = (backend: Backend.Backend): Backend.Backend => ({
  ...backend,
  open: (place, account, settings, opening) =>
    Effect.map(backend.open(place, account, settings, opening), (session): Backend.Session => {
      const note = noted(place)
      const reply = session.reply
      return {
        ...session,
        keepsConversation: true,
        turn: (prompt) => Stream.unwrap(Effect.as(note, session.turn(prompt))),
        reply: reply === undefined ? undefined : (prompt, limits) => Effect.zipRight(note, reply(prompt, limits))
      }
    })
})

const statelessBackends = (backends: Backend.Backends["Type"]): Backend.Backends["Type"] => {
  const wrapped = new Map<string, Backend.Backend>()
  const of = (backend: Backend.Backend) => {
    let found = wrapped.get(backend.cli)
    if (found === undefined) wrapped.set(backend.cli, found = statelessBackend(backend))
    return found
  }
  return { get: (cli) => Option.map(backends.get(cli), of), all: backends.all.map(of) }
}

/** What a chain that gave up fails with: the place's own `AiError`, or one saying what happened. */
const failedWith = (method: string) => (failure: Failure.Failure) =>
  Effect.fail(
    raised.get(failure) ??
      new AiError.UnknownError({ module: "FallbackAi", method, description: failure.message })
  )

const passedOn = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, unknown, R> =>
  Effect.catchSomeDefect(self, (defect) => defect instanceof Passed ? Option.some(Effect.fail(defect.error)) : Option.none())

/** Where a call was answered, as the caller reads it on the finish part's metadata. */
const annotation = (start: Place.Place, at: Place.Place | undefined) =>
  at === undefined || Place.format(at) === Place.format(start)
    ? undefined
    : { place: Place.format(at), from: Place.format(start), moved: true }

const annotated = (part: Response.AnyPart, note: Record<string, unknown>): Response.AnyPart =>
  ({ ...part, metadata: { ...part.metadata, fallback: note } }) as Response.AnyPart

const usageOf = (events: ReadonlyArray<Backend.Event>) => {
  const result = events.find((event) => event._tag === "Result")
  return new Response.Usage({
    inputTokens: result?.usage.input,
    outputTokens: result?.usage.output,
    totalTokens: result === undefined ? undefined : result.usage.input + result.usage.output
  })
}

/** The parts of an answer from a place that speaks text only. */
const partsOf = (events: ReadonlyArray<Backend.Event>): Array<Response.AnyPart> => [
  Response.makePart("text", { text: Backend.textOf(events) }),
  Response.makePart("finish", { reason: "stop", usage: usageOf(events) })
]

const asking = (call: Call): string => {
  const text = flatten(call.options.prompt)
  if (call.kind !== "object") return text
  const schema = JSON.stringify(JSONSchema.make(call.options.schema))
  return `${text}\n\nAnswer with only a JSON object that matches this JSON Schema:\n${schema}`
}

/** @internal */
export const make = Effect.fnUntraced(function*(place: Place.Place | string, config: FallbackAi.Config) {
  const backends = yield* Backend.Backends
  const agent = yield* Agent.make(place, config.settings, config.options).pipe(
    Effect.provideService(Backend.Backends, statelessBackends(backends))
  )

  const whole = (kind: "text" | "object", method: string) => (options: any): Effect.Effect<any, any, any> =>
    Effect.flatMap(agent.at, (start) => {
      const call: Call = { kind, options, at: undefined, response: undefined }
      return agent.reply(asking(call)).pipe(
        Effect.provideService(CurrentCall, call),
        Effect.catchAll(failedWith(method)),
        passedOn,
        Effect.flatMap((events) => answered(call, start, events))
      )
    })

  const answered = (call: Call, start: Place.Place, events: ReadonlyArray<Backend.Event>): Effect.Effect<any, any, any> => {
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
    const parts = partsOf(events).map((part) => note !== undefined && part.type === "finish" ? annotated(part, note) : part)
    if (call.kind === "text") return Effect.succeed(new LanguageModel.GenerateTextResponse(parts as any))
    return Schema.decodeUnknown(Schema.parseJson(call.options.schema as Schema.Schema<unknown, unknown>))(Backend.textOf(events)).pipe(
      Effect.mapError((error) =>
        AiError.MalformedOutput.fromParseError({ module: "FallbackAi", method: "generateObject", error })
      ),
      Effect.map((value) => new LanguageModel.GenerateObjectResponse(value, parts as any))
    )
  }

  const streamText = (options: any): Stream.Stream<any, any, any> =>
    Stream.unwrap(Effect.map(agent.at, (start) => {
      const call: Call = { kind: "stream", options, at: undefined, response: undefined }
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
        const finish = Response.makePart("finish", { reason: "stop", usage: usageOf(result === undefined ? [] : [result]) })
        return Stream.make(
          Response.makePart("text-end", { id: "0" }),
          note === undefined ? finish : annotated(finish, note)
        )
      })
      return agent.turn(asking(call)).pipe(
        Stream.mapConcat(partsFor),
        Stream.concat(ending),
        Stream.catchAll((failure) => Stream.fromEffect(failedWith("streamText")(failure))),
        Stream.catchAllCause((cause) => {
          const defect = Option.getOrUndefined(Cause.dieOption(cause))
          return defect instanceof Passed ? Stream.fail(defect.error) : Stream.failCause(cause)
        }),
        Stream.provideService(CurrentCall, call)
      )
    }))

  return LanguageModel.LanguageModel.of({
    generateText: whole("text", "generateText"),
    generateObject: whole("object", "generateObject"),
    streamText
  } as any)
})

