import * as AiError from "@effect/ai/AiError"
import * as LanguageModel from "@effect/ai/LanguageModel"
import * as Response from "@effect/ai/Response"
import { Agent, Backend, type Failure, Place } from "@fallback/core"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as JSONSchema from "effect/JSONSchema"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"

import type * as FallbackAi from "../FallbackAi.js"
import { masked } from "./aiFailure.js"
import { type Call, callOn, carried, currentCall, models, Passed, raised } from "./call.js"
import { flatten } from "./prompt.js"

/**
 * What a place that takes only text is asked: for `generateObject`, the prompt and the schema its
 * answer must match (written out the first time such a place is reached).
 */
const textFor = (call: Call, prompt: Backend.Prompt): Backend.Prompt => {
  if (call.kind !== "object") return prompt
  call.asked ??= `${prompt.text}\n\nAnswer with only a JSON object that matches this JSON Schema:\n${
    JSON.stringify(JSONSchema.make(call.options.schema))
  }`
  return { text: call.asked, history: prompt.history }
}

/**
 * A backend as a chain's place: each call carries its whole conversation in its prompt, so no
 * session keeps exchanges of its own. An `@effect/ai` place reads the call itself and notes where
 * it went; any other place is given the call as text, and its attempts are noted here.
 */
const statelessBackend = (backend: Backend.Backend): Backend.Backend => ({
  ...backend,
  open: (place, account, settings, opening) =>
    Effect.map(
      backend.open(place, account, settings, opening),
      (session): Backend.Session =>
        models.has(backend) ? { ...session, keepsConversation: true } : texted(place, session)
    )
})

/** A session of a place that takes only text, as a chain's place. */
const texted = (place: Place.Place, session: Backend.Session): Backend.Session => {
  const reply = session.reply
  const noted = <A>(prompt: Backend.Prompt, go: (prompt: Backend.Prompt) => A) =>
    Effect.withFiberRuntime<A>((fiber) => {
      const call = callOn(fiber)
      if (call === undefined) return Effect.succeed(go(prompt))
      call.at = place
      return Effect.succeed(go(textFor(call, prompt)))
    })
  return {
    ...session,
    keepsConversation: true,
    turn: (prompt) => Stream.unwrap(noted(prompt, session.turn)),
    reply: reply === undefined
      ? undefined
      : (prompt, limits) => Effect.flatten(noted(prompt, (prompt) => reply(prompt, limits)))
  }
}

const statelessBackends = (backends: Backend.Backends["Type"]): Backend.Backends["Type"] => {
  const wrapped = new Map<string, Backend.Backend>()
  const of = (backend: Backend.Backend) => {
    let found = wrapped.get(backend.cli)
    if (found === undefined) wrapped.set(backend.cli, found = statelessBackend(backend))
    return found
  }
  return { get: (cli) => Option.map(backends.get(cli), of), all: backends.all.map(of) }
}

/** What a chain that gave up fails with: the place's own `AiError`, masked, or one saying what happened. */
const failedWith = (method: string) => (failure: Failure.Failure) => {
  const error = raised.get(failure)
  return Effect.fail(
    error === undefined
      ? new AiError.UnknownError({ module: "FallbackAi", method, description: failure.message })
      : masked(error)
  )
}

/**
 * What a call that failed fails with: the chain's giving up as {@link failedWith} says, an error
 * from the caller's own code (carried as a `Passed` defect) as it was, anything else as it is.
 */
const failedCall = (method: string) => (cause: Cause.Cause<Failure.Failure>): Effect.Effect<never, unknown> => {
  const failure = Cause.failureOption(cause)
  if (Option.isSome(failure)) return failedWith(method)(failure.value)
  const defect = Option.getOrUndefined(Cause.dieOption(cause))
  return defect instanceof Passed ? Effect.fail(defect.error) : Effect.failCause(cause)
}

/** Where a call was answered, as the caller reads it on the finish part's metadata. */
const annotation = (start: Place.Place, at: Place.Place | undefined) =>
  at === undefined || at === start || Place.format(at) === Place.format(start)
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

/** @internal */
export const make = Effect.fnUntraced(function*(place: Place.Place | string, config: FallbackAi.Config) {
  const backends = yield* Backend.Backends
  const agent = yield* Agent.make(place, config.settings, config.options).pipe(
    Effect.provideService(Backend.Backends, statelessBackends(backends))
  )

  const whole = (kind: "text" | "object", method: string) => (options: any): Effect.Effect<any, any, any> =>
    Effect.flatMap(agent.at, (start) => {
      const call: Call = { kind, options, at: undefined, response: undefined, asked: undefined, open: true }
      // The call is set on the fiber, and closed when it ends, without Effect.locally's
      // uninterruptible acquire and release: a fiber interrupted in the call ends there, and a
      // forked one is not joined back. A call it was made in is put back.
      return Effect.flatMap(FiberRef.getAndSet(currentCall, call), (outer) => {
        const ended = <A, E, R>(then: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
          call.open = false
          return outer === undefined || !outer.open ? then : Effect.zipRight(FiberRef.set(currentCall, outer), then)
        }
        return Effect.matchCauseEffect(agent.reply(flatten(options.prompt)), {
          onFailure: (cause) => ended(failedCall(method)(cause)),
          onSuccess: (events) => ended(answered(call, start, events))
        })
      })
    })

  const answered = (
    call: Call,
    start: Place.Place,
    events: ReadonlyArray<Backend.Event>
  ): Effect.Effect<any, any, any> => {
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
    return Schema.decodeUnknown(Schema.parseJson(call.options.schema as Schema.Schema<unknown, unknown>))(
      Backend.textOf(events)
    ).pipe(
      Effect.mapError((error) =>
        AiError.MalformedOutput.fromParseError({ module: "FallbackAi", method: "generateObject", error })
      ),
      Effect.map((value) => new LanguageModel.GenerateObjectResponse(value, parts as any))
    )
  }

  const streamText = (options: any): Stream.Stream<any, any, any> =>
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
        const finish = Response.makePart("finish", {
          reason: "stop",
          usage: usageOf(result === undefined ? [] : [result])
        })
        return Stream.make(
          Response.makePart("text-end", { id: "0" }),
          note === undefined ? finish : annotated(finish, note)
        )
      })
      const answer = agent.turn(flatten(options.prompt)).pipe(
        Stream.mapConcat(partsFor),
        Stream.concat(ending),
        Stream.catchAllCause((cause) => Stream.fromEffect(failedCall("streamText")(cause)))
      )
      return Stream.unwrapScoped(Effect.as(Effect.locallyScoped(currentCall, call), answer))
    }))

  return LanguageModel.LanguageModel.of({
    generateText: whole("text", "generateText"),
    generateObject: whole("object", "generateObject"),
    streamText
  } as any)
})
