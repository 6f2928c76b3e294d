import type * as Account from "@fallback/core/Account"
import * as Backend from "@fallback/core/Backend"
import * as Deadline from "@fallback/core/Deadline"
import * as Failure from "@fallback/core/Failure"
import * as Place from "@fallback/core/Place"
import type * as Settings from "@fallback/core/Settings"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as HttpClient from "effect/http/HttpClient"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { randomUUID } from "node:crypto"
import type { Provider } from "../../HttpProvider.js"
import { Answer } from "./answer.js"
import { anthropic } from "./anthropic.js"
import { bounded, timeout } from "./bounded.js"
import * as Client from "./client.js"
import { continuation, continuing, refusal, refusedContinuation } from "./continuation.js"
import * as Direct from "./direct.js"
import { headersOf, keySource, readKey } from "./headers.js"
import { capable, listed, withListed } from "./models.js"
import { openAi } from "./openAi.js"
import { type Call, events, ok, replied, whole } from "./response.js"
import type { Wire } from "./wire.js"

/** How long a provider's model list may take when a backend is made. */
const listedWithin = 10_000

const wires: Readonly<Record<Provider["kind"], Wire>> = { "anthropic-messages": anthropic, "openai-compatible": openAi }

/** @internal */
export const make = (
  provider: Provider,
  options: {
    readonly idle: Duration.Duration
    readonly firstByte?: Duration.Duration | undefined
    readonly dispatcher: Option.Option<Direct.Dispatcher>
    readonly discover?: boolean | undefined
  }
): Effect.Effect<Backend.Backend, never, HttpClient.HttpClient> =>
  Effect.flatMap(Effect.service(HttpClient.HttpClient), (client) => {
    const transport = Option.match(options.dispatcher, {
      onNone: () => Client.transport(client),
      onSome: Direct.transport
    })
    const wire = wires[provider.kind]
    const base = provider.baseUrl.replace(/\/+$/, "")
    const url = `${base}${wire.turnPath}`
    const maxTokens = provider.maxTokens ?? 4096
    const stalledFor = `the answer's stream sent nothing for ${Duration.format(options.idle)}`
    const continues = continuation(provider)
    const idle = Duration.toMillis(options.idle)
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
    // The provider's model list, where asked for, within 10 s; the config's models alone where it fails.
    const listing = options.discover !== true ? Effect.succeed(provider.models) : Effect.gen(function*() {
      const place = Place.Place.make({ cli: provider.name, model: provider.models[0]?.name ?? "models" })
      const headers = yield* headersFor(place, Option.none())
      const call: Call = { method: "GET", url: `${base}${wire.modelsPath}`, headers, place }
      const now = yield* Clock.currentTimeMillis
      const body = yield* bounded(transport, call, (response) => whole(place, response), {
        by: now + Math.min(firstByte, listedWithin),
        whole: now + listedWithin
      })
      return withListed(provider.models, listed(body))
    }).pipe(Effect.catch(() => Effect.succeed(provider.models)))

    return Effect.map(listing, (known): Backend.Backend => ({
      cli: provider.name,
      kind: "http",
      capabilities: {
        webSearchOff: true,
        callbacks: false,
        effort: false,
        // no tools, so no rung is what it runs at: an agent given one does not move here
        permission: false,
        skills: false,
        resume: true,
        continues: continues.byDefault,
        models: capable(known, continues.of)
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
          const continued = (prompt: Backend.Prompt) => continuing(prompt.prefill)
          const call = (prompt: Backend.Prompt): Call => ({
            method: "POST",
            url,
            headers,
            body: JSON.stringify(wire.body(place.model, prompt, maxTokens)),
            place,
            continued: continued(prompt)
          })
          // A continuation is sent only where the model takes one; elsewhere it is refused unsent.
          const unsent = (prompt: Backend.Prompt) =>
            continued(prompt) && !continues.at(place.model)
              ? Effect.fail(
                refusedContinuation(place, `${Place.format(place)} does not continue an answer from a prefill`)
              )
              : Effect.void
          const stalled = () => new Failure.Unresponsive({ place, said: Failure.said(stalledFor) })
          return {
            id,
            turn: (prompt) =>
              Stream.unwrap(Effect.gen(function*() {
                yield* unsent(prompt)
                const response = yield* Deadline.cutAfter(
                  transport.send(call(prompt)),
                  firstByte,
                  () => timeout(place, "first-byte", firstByte)
                )
                if (!ok(response)) return yield* refusal(place, response, continued(prompt))
                return events(response, new Answer(wire, place, prompt), first, options.idle, stalled)
              })),
            reply: (prompt, limits) =>
              Effect.andThen(unsent(prompt), Clock.currentTimeMillis).pipe(Effect.flatMap((sent) =>
                bounded(
                  transport,
                  call(prompt),
                  (response, progress) => replied(response, new Answer(wire, place, prompt), first, progress),
                  // The provider's own first-byte limit, where it has one, comes first; the first
                  // byte is the first content, and a body quiet for the stall limit ends as a stream's would.
                  {
                    by: Math.min(limits.by, sent + firstByte),
                    whole: limits.whole,
                    content: true,
                    stall: Math.min(idle, limits.stall ?? Infinity),
                    stalled
                  }
                )
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
    }))
  })
