import type * as Account from "@fallback/core/Account"
import * as Backend from "@fallback/core/Backend"
import * as Deadline from "@fallback/core/Deadline"
import * as Failure from "@fallback/core/Failure"
import * as Place from "@fallback/core/Place"
import type * as Provider from "@fallback/core/Provider"
import type * as Settings from "@fallback/core/Settings"
import * as AiError from "effect/ai/AiError"
import * as LanguageModel from "effect/ai/LanguageModel"
import * as Prompt from "effect/ai/Prompt"
import type * as Response from "effect/ai/Response"
import * as Clock from "effect/Clock"
import * as Config from "effect/Config"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"

import type * as AiPlace from "../AiPlace.js"
import { filtered, toFailure } from "./aiFailure.js"
import { type Call, callOn, carried, models, Passed, raised } from "./call.js"
import { spread } from "./chunks.js"
import { reference } from "./generation.js"
import { held } from "./held.js"
import * as direct from "./model/direct.js"

/** The failure an `effect/ai` error is; the error itself is kept (masked when it is handed back) for a chain that gives up. */
const failed = (place: Place.Place) => (error: unknown): Effect.Effect<never, Failure.Failure> =>
  AiError.isAiError(error)
    ? Effect.flatMap(Clock.currentTimeMillis, (now) => {
      const failure = toFailure(error, place, now)
      raised.set(failure, error)
      return Effect.fail(failure)
    })
    : Effect.die(new Passed(error))

const noVariable = Config.fail(
  new ConfigProvider.SourceError({ message: "this place was registered with no key variable" })
)

/** The key an account gives a place: the account's own variable for the registered one, else the registered one. */
const keyOf = (
  variable: string | undefined,
  account: Option.Option<Account.Account>
): { readonly config: Config.Config<Redacted.Redacted>; readonly variable: string | undefined } => {
  if (variable === undefined) return { config: noVariable, variable }
  const own = Option.getOrUndefined(account)?.env?.[variable]
  if (own === undefined) return { config: held(Config.Redacted(variable)), variable }
  return typeof own === "string"
    ? { config: held(Config.succeed(Redacted.make(own))), variable }
    : { config: held(Config.Redacted(own.fromEnv)), variable: own.fromEnv }
}

const unbuilt =
  (place: Place.Place, variable: string | undefined) => (error: unknown): Effect.Effect<never, Failure.Failure> =>
    error instanceof Config.ConfigError
      ? Effect.fail(
        new Failure.AuthRefused({
          place,
          said: Failure.said(variable === undefined ? "no key" : `no key: the variable ${variable} is not set`)
        })
      )
      : AiError.isAiError(error)
      ? failed(place)(error)
      : Effect.fail(new Failure.Unknown({ place, said: Failure.said(`the model's layer failed: ${String(error)}`) }))

/** A conversation a plain agent keeps, as the messages of a prompt (the answer so far last, where one is continued). */
const promptOf = (prompt: Backend.Prompt): Prompt.RawInput => {
  const messages: Array<Prompt.MessageEncoded> = []
  for (const exchange of prompt.history) {
    messages.push({ role: "user", content: exchange.prompt }, { role: "assistant", content: exchange.answer })
  }
  messages.push({ role: "user", content: prompt.text })
  if (prompt.prefill !== undefined && prompt.prefill !== "") {
    messages.push({ role: "assistant", content: prompt.prefill })
  }
  return messages
}

/**
 * A call's options at a place asked to continue an answer: its prompt with the answer delivered
 * so far as an assistant message at its end (an assistant prefill), which the model goes on from.
 */
const continued = (options: any, prefill: string | undefined): any =>
  prefill === undefined || prefill === ""
    ? options
    : {
      ...options,
      prompt: Prompt.concat(Prompt.make(options.prompt), Prompt.make([{ role: "assistant", content: prefill }]))
    }

/** Parts that come before an answer's content: they wait with it, and go when an attempt fails. */
const leading: ReadonlySet<string> = new Set([
  "response-metadata",
  "text-start",
  "reasoning-start",
  "tool-params-start"
])

const errorPart = (place: Place.Place, part: Response.ErrorPart): Effect.Effect<never, Failure.Failure> =>
  failed(place)(
    AiError.make({
      module: "AiPlace",
      method: "streamText",
      reason: new AiError.UnknownError({ description: JSON.stringify(part.error) ?? String(part.error) })
    })
  )

/**
 * The event that carries a part through the engine: opening parts none of the answer's content,
 * a tool's parts a tool use (a turn inside a tool call is never continued elsewhere), thinking as
 * thinking, text as its text (an empty delta is no content either).
 */
const eventOf = (part: Response.AnyPart, id: string): Backend.Event => {
  if (leading.has(part.type)) return Backend.Event.SessionStarted({ sessionId: id })
  switch (part.type) {
    case "text-delta":
      return Backend.Event.Text({ text: part.delta })
    case "reasoning-delta":
      return part.delta === "" ? Backend.Event.Text({ text: "" }) : Backend.Event.Thinking({ text: part.delta })
    case "tool-params-delta":
    case "tool-call":
    case "tool-result":
      return Backend.Event.ToolUse({ name: "name" in part ? part.name : part.id, input: undefined })
    default:
      return Backend.Event.Text({ text: "" })
  }
}

/** A streamed answer as events: each part carried by one, its text in it where it has some. */
const eventsOf = (
  place: Place.Place,
  id: string,
  parts: Stream.Stream<Response.AnyPart, unknown>
): Stream.Stream<Backend.Event, Failure.Failure> =>
  parts.pipe(
    Stream.catch((error) => Stream.fromEffect(failed(place)(error))),
    // a chunk at a time: a stage a part would run the engine's every stage once a part
    (parts) =>
      spread(parts, (chunk) => {
        const out: Array<Backend.Event> = []
        for (const part of chunk) {
          if (part.type === "error") return { out, failure: errorPart(place, part) }
          const refused = part.type === "finish"
            ? filtered(part.reason, place) ?? broken(part.reason, place)
            : undefined
          if (refused !== undefined) return { out, failure: Effect.fail(refused) }
          const event = eventOf(part, id)
          carried.set(event, [part])
          out.push(event)
        }
        return { out }
      })
  )

/** An answer whose finish says it broke off in an error: a failure, never a whole answer. */
const broken = (reason: string, place: Place.Place): Failure.Failure | undefined =>
  reason === "error"
    ? new Failure.ConnectionLost({
      place,
      said: Failure.said("the answer broke off in an error (finish reason: error)")
    })
    : undefined

const answered = (place: Place.Place, call: Call | undefined) =>
(
  response: LanguageModel.GenerateTextResponse<any>
): Effect.Effect<ReadonlyArray<Backend.Event>, Failure.Failure> => {
  const refused = filtered(response.finishReason, place) ?? broken(response.finishReason, place)
  if (refused !== undefined) return Effect.fail(refused)
  if (call !== undefined) call.response = response
  // as Backend.Event.Text makes it, whose constructor V8 runs on its slow path (one for every kind)
  const event: Backend.Event = { text: response.text, _tag: "Text" }
  return Effect.succeed([event])
}

const whole = (lm: LanguageModel.LanguageModel, place: Place.Place, call: Call) =>
  Effect.matchEffect(
    // The call's own requirements (its tools' handlers) come from the caller's context, where
    // the attempt runs.
    Effect.provideService(
      (call.kind === "object"
        ? lm.generateObject(call.options)
        : direct.generateText(lm, call.options)) as unknown as Effect.Effect<
          LanguageModel.GenerateTextResponse<any>,
          unknown
        >,
      reference,
      call.generation
    ),
    { onFailure: failed(place), onSuccess: answered(place, call) }
  )

/**
 * How a continued call failed: a request refused as invalid, for no other reason, is the
 * continuation refused, so the failure it was to answer stays on top.
 */
const refusedPrefill = (failure: Failure.Failure): Failure.Failure => {
  const own = raised.get(failure)
  if (failure._tag !== "Unknown" || own?.reason._tag !== "InvalidRequestError") return failure
  const refused = new Failure.ArgumentsRefused({ place: failure.place, said: failure.said, argument: "prefill" })
  raised.set(refused, own)
  return refused
}

const late = (place: Place.Place, left: number) => () =>
  new Failure.Timeout({
    place,
    said: Failure.said("no answer in time"),
    phase: "first-byte",
    after: Duration.millis(left)
  })

const session = (lm: LanguageModel.LanguageModel, place: Place.Place, id: string): Backend.Session => ({
  id,
  turn: (prompt) =>
    Stream.unwrap(Effect.withFiber((fiber) => {
      const call = callOn(fiber)
      if (call !== undefined) call.at = place
      const events = eventsOf(
        place,
        id,
        call !== undefined && call.kind === "stream"
          ? Stream.provideService(
            direct.streamText(lm, continued(call.options, prompt.prefill)) as Stream.Stream<Response.AnyPart, unknown>,
            reference,
            call.generation
          )
          : direct.streamText(lm, { prompt: promptOf(prompt) }) as Stream.Stream<Response.AnyPart, unknown>
      )
      return Effect.succeed(
        prompt.prefill === undefined || prompt.prefill === "" ? events : Stream.mapError(events, refusedPrefill)
      )
    })),
  // A whole answer is bounded by the time its first byte was due: all of it is its first content.
  reply: (prompt, limits) =>
    Effect.withFiber((fiber) => {
      const call = callOn(fiber)
      if (call !== undefined) call.at = place
      const asked = call !== undefined && call.kind !== "stream"
        ? whole(lm, place, call)
        : Effect.matchEffect(direct.generateText(lm, { prompt: promptOf(prompt) }), {
          onFailure: failed(place),
          onSuccess: answered(place, undefined)
        })
      if (!Number.isFinite(limits.by)) return asked
      const left = Math.max(0, limits.by - fiber.getRef(Clock.Clock).currentTimeMillisUnsafe())
      return Deadline.cutAt(asked, limits.by, late(place, left))
    }),
  keepsLimits: true
})

/** OpenAI's own API, which answers a last assistant message as a new turn, not a continuation. */
const official = (baseUrl: string): boolean => /^https?:\/\/api\.openai\.com(?::\d+)?(?:\/|$)/i.test(baseUrl)

/**
 * Whether a config file's provider continues a cut answer, and its models: as `HttpProvider` reads
 * it (the provider's or the model's `continues`; Anthropic Messages by default; never OpenAI's own API).
 *
 * @internal
 */
export const continuation = (provider: Provider.Provider): {
  readonly continues: boolean
  readonly models: ReadonlyArray<Backend.Model>
} => {
  const never = official(provider.baseUrl)
  const models = provider.models ?? []
  return {
    continues: !never && (provider.continues ?? provider.kind === "anthropic-messages"),
    models: never ? models.map((model) => ({ ...model, continues: false })) : models
  }
}

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
      ...(registration.kind === undefined ? {} : { kind: registration.kind }),
      capabilities: {
        webSearchOff: true,
        callbacks: false,
        resume: false,
        continues: registration.continues ?? false,
        models: registration.models ?? []
      },
      open: (
        place: Place.Place,
        account: Option.Option<Account.Account>,
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
            Effect.catch(unbuilt(place, key.variable))
          )
          opened += 1
          return session(
            Context.get(built, LanguageModel.LanguageModel),
            place,
            opening.resume ?? `${Place.format(place)}#${opened}`
          )
        })
    }))
