import * as AiError from "@effect/ai/AiError"
import * as LanguageModel from "@effect/ai/LanguageModel"
import type * as Prompt from "@effect/ai/Prompt"
import type * as Response from "@effect/ai/Response"
import { Backend, type ConfigFile, Failure, Place, Secret, type Settings } from "@fallback/core"
import * as Chunk from "effect/Chunk"
import * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"

import type * as AiPlace from "../AiPlace.js"
import { filtered, toFailure } from "./aiFailure.js"
import { type Call, callOn, carried, models, Passed, raised } from "./call.js"
import { within } from "./within.js"

/** The failure an `@effect/ai` error is; the error itself is kept (masked when it is handed back) for a chain that gives up. */
const failed = (place: Place.Place) => (error: unknown): Effect.Effect<never, Failure.Failure> =>
  AiError.isAiError(error)
    ? Effect.clockWith((clock) => {
      const failure = toFailure(error, place, clock.unsafeCurrentTimeMillis())
      raised.set(failure, error)
      return Effect.fail(failure)
    })
    : Effect.die(new Passed(error))

/** The key an account gives a place: the account's own variable for the registered one, else the registered one. */
const keyOf = (
  variable: string | undefined,
  account: Option.Option<ConfigFile.Account>
): { readonly config: Config.Config<Redacted.Redacted>; readonly variable: string | undefined } => {
  if (variable === undefined) {
    return { config: Config.fail("this place was registered with no key variable"), variable }
  }
  const own = Option.getOrUndefined(account)?.env?.[variable]
  if (own === undefined) return { config: held(Config.redacted(variable)), variable }
  return typeof own === "string"
    ? { config: held(Config.succeed(Redacted.make(own))), variable }
    : { config: held(Config.redacted(own.fromEnv)), variable: own.fromEnv }
}

/** A key read is a secret the process holds: masked wherever text leaves it. */
const held = (config: Config.Config<Redacted.Redacted>): Config.Config<Redacted.Redacted> =>
  Config.map(config, (key) => {
    Secret.hold(Redacted.value(key))
    return key
  })

const unbuilt =
  (place: Place.Place, variable: string | undefined) => (error: unknown): Effect.Effect<never, Failure.Failure> =>
    ConfigError.isConfigError(error)
      ? Effect.fail(
        new Failure.AuthRefused({
          place,
          said: Failure.said(variable === undefined ? "no key" : `no key: the variable ${variable} is not set`)
        })
      )
      : AiError.isAiError(error)
      ? failed(place)(error)
      : Effect.fail(new Failure.Unknown({ place, said: Failure.said(`the model's layer failed: ${String(error)}`) }))

/** A conversation a plain agent keeps, as the messages of a prompt. */
const promptOf = (prompt: Backend.Prompt): Prompt.RawInput => {
  const messages: Array<Prompt.MessageEncoded> = []
  for (const exchange of prompt.history) {
    messages.push({ role: "user", content: exchange.prompt }, { role: "assistant", content: exchange.answer })
  }
  messages.push({ role: "user", content: prompt.text })
  return messages
}

/** Parts that come before an answer's content: they wait with it, and go when an attempt fails. */
const leading: ReadonlySet<string> = new Set([
  "response-metadata",
  "text-start",
  "reasoning-start",
  "tool-params-start"
])

const errorPart = (place: Place.Place, part: Response.AnyPart): Effect.Effect<never, Failure.Failure> =>
  Effect.clockWith((clock) => {
    const error = (part as Response.ErrorPart).error
    return Effect.fail(
      toFailure(
        new AiError.UnknownError({
          module: "AiPlace",
          method: "streamText",
          description: JSON.stringify(error) ?? String(error)
        }),
        place,
        clock.unsafeCurrentTimeMillis()
      )
    )
  })

/** A streamed answer as events: each part carried by one, its text in it where it has some. */
const eventsOf = (
  place: Place.Place,
  id: string,
  parts: Stream.Stream<Response.AnyPart, unknown>
): Stream.Stream<Backend.Event, Failure.Failure> =>
  parts.pipe(
    Stream.catchAll((error) => Stream.fromEffect(failed(place)(error))),
    Stream.mapChunksEffect((chunk) => {
      const out: Array<Backend.Event> = []
      for (const part of chunk) {
        if (part.type === "error") return errorPart(place, part)
        const refused = part.type === "finish" ? filtered(part.reason, place) : undefined
        if (refused !== undefined) return Effect.fail(refused)
        const event = leading.has(part.type)
          ? Backend.Event.SessionStarted({ sessionId: id })
          : Backend.Event.Text({ text: part.type === "text-delta" ? part.delta : "" })
        carried.set(event, [part])
        out.push(event)
      }
      return Effect.succeed(Chunk.unsafeFromArray(out))
    })
  )

const whole = (lm: LanguageModel.Service, place: Place.Place, call: Call) =>
  Effect.flatMap(
    Effect.catchAll(
      // The call's own requirements (its tools' handlers) come from the caller's context, where
      // the attempt runs.
      (call.kind === "object" ? lm.generateObject(call.options) : lm.generateText(call.options)) as Effect.Effect<
        LanguageModel.GenerateTextResponse<any>,
        unknown
      >,
      failed(place)
    ),
    (
      response: LanguageModel.GenerateTextResponse<any>
    ): Effect.Effect<ReadonlyArray<Backend.Event>, Failure.Failure> => {
      const refused = filtered(response.finishReason, place)
      if (refused !== undefined) return Effect.fail(refused)
      call.response = response
      return Effect.succeed([Backend.Event.Text({ text: response.text })])
    }
  )

const session = (lm: LanguageModel.Service, place: Place.Place, id: string): Backend.Session => ({
  id,
  turn: (prompt) =>
    Stream.unwrap(Effect.withFiberRuntime((fiber) => {
      const call = callOn(fiber)
      if (call !== undefined) call.at = place
      return Effect.succeed(eventsOf(
        place,
        id,
        call !== undefined && call.kind === "stream"
          ? lm.streamText(call.options) as Stream.Stream<Response.AnyPart, unknown>
          : lm.streamText({ prompt: promptOf(prompt) })
      ))
    })),
  // A whole answer is bounded by the time its first byte was due: all of it is its first content.
  reply: (prompt, limits) =>
    Effect.withFiberRuntime((fiber, status) => {
      const call = callOn(fiber)
      if (call !== undefined) call.at = place
      return within(
        fiber,
        status.runtimeFlags,
        call !== undefined && call.kind !== "stream"
          ? whole(lm, place, call)
          : Effect.flatMap(
            Effect.catchAll(lm.generateText({ prompt: promptOf(prompt) }), failed(place)),
            (response) => {
              const refused = filtered(response.finishReason, place)
              return refused === undefined
                ? Effect.succeed([Backend.Event.Text({ text: response.text })])
                : Effect.fail(refused)
            }
          ),
        limits.by,
        (after) => new Failure.Timeout({ place, said: Failure.said("no answer in time"), phase: "first-byte", after })
      )
    }),
  keepsLimits: true
})

let opened = 0

const modelBackend = (backend: Backend.Backend): Backend.Backend => {
  models.add(backend)
  return backend
}

/** @internal */
export const make = <E, R>(registration: AiPlace.Registration<E, R>): Effect.Effect<Backend.Backend, never, R> =>
  Effect.map(Effect.context<R>(), (context): Backend.Backend =>
    modelBackend({
      cli: registration.cli,
      capabilities: {
        webSearchOff: true,
        callbacks: false,
        resume: false,
        models: registration.models ?? []
      },
      open: (
        place: Place.Place,
        account: Option.Option<ConfigFile.Account>,
        _settings: Settings.Settings,
        opening: Backend.Opening
      ) =>
        Effect.gen(function*() {
          const key = keyOf(registration.key, account)
          const layer = registration.layer({ model: place.model, key: key.config, account })
          const built = yield* Layer.buildWithScope(
            Layer.provide(layer, Layer.succeedContext(context)),
            yield* Effect.scope
          ).pipe(
            Effect.catchAll(unbuilt(place, key.variable))
          )
          opened += 1
          return session(
            Context.get(built, LanguageModel.LanguageModel),
            place,
            opening.resume ?? `${Place.format(place)}#${opened}`
          )
        })
    }))
