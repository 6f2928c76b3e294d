import type * as Account from "@fallback/core/Account"
import * as Backend from "@fallback/core/Backend"
import * as Deadline from "@fallback/core/Deadline"
import * as Failure from "@fallback/core/Failure"
import * as Place from "@fallback/core/Place"
import type * as Settings from "@fallback/core/Settings"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as HttpClient from "effect/http/HttpClient"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { randomUUID } from "node:crypto"
import type { Provider } from "../../HttpProvider.js"
import { Answer } from "./answer.js"
import { anthropic } from "./anthropic.js"
import * as Client from "./client.js"
import * as Direct from "./direct.js"
import { headersOf, keySource, readKey } from "./headers.js"
import { openAi } from "./openAi.js"
import { type Call, events, eventsOf, ok, refused, type Response, type Transport, whole } from "./response.js"
import type { Wire } from "./wire.js"

const wires: Readonly<Record<Provider["kind"], Wire>> = { "anthropic-messages": anthropic, "openai-compatible": openAi }

const timeout = (place: Place.Place, phase: "first-byte" | "whole-send", after: number) =>
  new Failure.Timeout({
    place,
    said: Failure.said(phase === "first-byte" ? "no first byte" : "the whole reply did not come in time"),
    phase,
    after: Duration.millis(after)
  })

/**
 * A reply within its limits (Clock millis): the response (its status and headers) by `by`, else
 * a first-byte Timeout; the whole body by `whole`, else a whole-send Timeout. One fiber runs the
 * reply, waited on by `by` and, only if its response came by then, by `whole` (core's Deadline).
 */
const bounded = <A>(
  transport: Transport,
  call: Call,
  read: (response: Response) => Effect.Effect<A, Failure.Failure>,
  limits: { readonly by: number; readonly whole: number }
): Effect.Effect<A, Failure.Failure> =>
  Effect.flatMap(Clock.currentTimeMillis, (sent) => {
    const { by, whole } = limits
    let answered = false
    const work = Effect.scoped(Effect.flatMap(transport.send(call), (response) => {
      answered = true
      return ok(response) ? read(response) : refused(call.place, response)
    }))
    const late = () => timeout(call.place, "whole-send", whole - sent)
    // A `by` at or past `whole` bounds nothing `whole` does not.
    if (!(by < whole)) return Deadline.cutAt(work, whole, late)
    const cut = <B>(fiber: Fiber.Fiber<B, Failure.Failure>, failure: Failure.Failure) =>
      Effect.andThen(Fiber.interrupt(fiber), Effect.fail(failure))
    return Effect.flatMap(Effect.forkChild(work, { startImmediately: true }), (fiber) =>
      Effect.flatMap(Deadline.joinBy(fiber, by), (first) => {
        if (Option.isSome(first)) {
          return Effect.succeed(first.value)
        }
        if (!answered) {
          return cut(fiber, timeout(call.place, "first-byte", by - sent))
        }
        return Effect.flatMap(
          Deadline.joinBy(fiber, whole),
          (all) =>
            Option.isSome(all) ? Effect.succeed(all.value) : cut(fiber, late())
        )
      }))
  })

/** @internal */
export const make = (
  provider: Provider,
  options: {
    readonly idle: Duration.Duration
    readonly firstByte?: Duration.Duration | undefined
    readonly dispatcher: Option.Option<Direct.Dispatcher>
  }
): Effect.Effect<Backend.Backend, never, HttpClient.HttpClient> =>
  Effect.map(Effect.service(HttpClient.HttpClient), (client): Backend.Backend => {
    const transport = Option.match(options.dispatcher, {
      onNone: () => Client.transport(client),
      onSome: Direct.transport
    })
    const wire = wires[provider.kind]
    const base = provider.baseUrl.replace(/\/+$/, "")
    const url = `${base}${wire.turnPath}`
    const maxTokens = provider.maxTokens ?? 4096
    const stalledFor = `the answer's stream sent nothing for ${Duration.format(options.idle)}`
    // What each place's last session read its key and headers from, for `check`.
    const accounts = new Map<string, Option.Option<Account.Account>>()
    // The provider's own first-byte limit, on top of the engine's: its response's headers by then.
    const firstByte = options.firstByte === undefined ? Infinity : Duration.toMillis(options.firstByte)
    const headersFor = (place: Place.Place, account: Option.Option<Account.Account>) =>
      Effect.gen(function*() {
        const key = yield* readKey(place, keySource(provider.key, account))
        const extra = yield* headersOf(place, provider.headers, account)
        return { ...wire.headers(key), ...extra }
      })

    return {
      cli: provider.name,
      capabilities: {
        webSearchOff: true,
        callbacks: false,
        effort: false,
        // no tools, so no rung is what it runs at: an agent given one does not move here
        permission: false,
        skills: false,
        resume: true,
        models: provider.models.map((model) => ({ name: model.name, contextWindow: model.contextWindow }))
      },
      open: Effect.fn("HttpProvider.open")(
        function*(
          place: Place.Place,
          account: Option.Option<Account.Account>,
          _settings: Settings.Settings,
          opening: Backend.Opening
        ) {
          const headers = { accept: "text/event-stream", ...yield* headersFor(place, account) }
          accounts.set(Place.format(place), account)
          const id = opening.resume ?? randomUUID()
          const first = Backend.Event.SessionStarted({ sessionId: id })
          const call = (prompt: Backend.Prompt): Call => ({
            method: "POST",
            url,
            headers,
            body: JSON.stringify(wire.body(place.model, prompt, maxTokens)),
            place
          })
          const stalled = () => new Failure.Unresponsive({ place, said: Failure.said(stalledFor) })
          return {
            id,
            turn: (prompt) =>
              Stream.unwrap(Effect.gen(function*() {
                const response = yield* Deadline.cutAfter(
                  transport.send(call(prompt)),
                  firstByte,
                  () => timeout(place, "first-byte", firstByte)
                )
                if (!ok(response)) return yield* refused(place, response)
                return events(response, new Answer(wire, place, prompt), first, options.idle, stalled)
              })),
            reply: (prompt, limits) =>
              Effect.flatMap(Clock.currentTimeMillis, (sent) =>
                bounded(
                  transport,
                  call(prompt),
                  (response) =>
                    Effect.flatMap(
                      whole(place, response),
                      (body) => eventsOf(new Answer(wire, place, prompt), first, body)
                    ),
                  // The provider's own first-byte limit, where it has one, comes first.
                  { by: Math.min(limits.by, sent + firstByte), whole: limits.whole }
                )),
            keepsLimits: true
          } satisfies Backend.Session
        }
      ),
      check: Effect.fn("HttpProvider.check")(function*(place: Place.Place) {
        const headers = yield* headersFor(place, accounts.get(Place.format(place)) ?? Option.none())
        const call: Call = { method: "GET", url: `${base}${wire.modelsPath}`, headers, place }
        yield* bounded(transport, call, () => Effect.void, { by: Infinity, whole: Infinity })
      })
    }
  })
