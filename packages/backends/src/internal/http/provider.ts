import * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { Backend, type ConfigFile, Failure, Place, type Settings } from "@fallback/core"
import * as Secret from "@fallback/core/Secret"
import * as Chunk from "effect/Chunk"
import * as Clock from "effect/Clock"
import * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as DefaultServices from "effect/DefaultServices"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Tracer from "effect/Tracer"
import { randomUUID } from "node:crypto"
import type { Provider } from "../HttpProvider.js"
import { Answer, cut, lost, overlong } from "./httpAnswer.js"
import { anthropic } from "./httpAnthropic.js"
import * as Direct from "./httpDirect.js"
import { classify, Head, type Refusal } from "./httpFailure.js"
import { headersOf } from "./httpHeaders.js"
import { openAi } from "./httpOpenAi.js"
import { LineRun } from "./httpSse.js"
import type { Wire } from "./httpWire.js"

const wires: Readonly<Record<Provider["kind"], Wire>> = { "anthropic-messages": anthropic, "openai-compatible": openAi }

const unreached = (place: Place.Place, error: HttpClientError.HttpClientError): Failure.Failure =>
  error._tag === "RequestError" && error.reason === "Transport"
    ? lost(place, `could not reach ${error.request.url}`, error.cause)
    : new Failure.Unknown({ place, said: Failure.said(`${error.reason}: ${error.message}`) })

/** The failure a non-2xx response is, read from its status, headers and body. */
const refusal = (place: Place.Place, refused: Refusal) =>
  Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.fail(classify(refused, place, now)))

/**
 * The same, for a response of the HttpClient: the body's head read (the rest never is: the body
 * is let go once a byte past the head comes).
 */
const refused = (place: Place.Place, response: HttpClientResponse.HttpClientResponse) =>
  Effect.suspend(() => {
    const head = new Head()
    return Effect.flatMap(
      response.stream.pipe(
        Stream.runFoldWhile(head, (kept) => !kept.cut, (kept, chunk) => kept.add(chunk)),
        Effect.orElseSucceed(() => head)
      ),
      (kept) => refusal(place, { status: response.status, headers: response.headers, body: kept.text(), cut: kept.cut })
    )
  })

/**
 * A reply's body read whole, as text; none once a line runs past the longest an event may be
 * (the rest is then not read).
 */
const bodyOf = (response: HttpClientResponse.HttpClientResponse) =>
  Effect.suspend(() => {
    const run = new LineRun()
    let within = true
    return Effect.map(
      response.stream.pipe(
        Stream.runFoldWhile([] as Array<Uint8Array>, () => within, (chunks, chunk) => {
          chunks.push(chunk)
          within = run.add(chunk)
          return chunks
        })
      ),
      (chunks) => within ? Buffer.concat(chunks).toString("utf8") : undefined
    )
  })

/** A body read whole as the events it comes to: the session first. */
const whole = (wire: Wire, place: Place.Place, prompt: Backend.Prompt, id: string, body: string) => {
  const answer = new Answer(wire, place, prompt)
  const out: Array<Backend.Event> = [Backend.Event.SessionStarted({ sessionId: id })]
  return Effect.as(Effect.zipRight(answer.more(body, out), answer.end(out)), out)
}

const ok = (response: HttpClientResponse.HttpClientResponse) => response.status >= 200 && response.status < 300

/** Effect's own tracer, which a program has unless it installs one: it exports no span. */
const native = Context.get(DefaultServices.liveServices, Tracer.Tracer)

/**
 * The client, sending each request as a span of its own only where a tracer that exports spans is
 * installed: under Effect's native tracer the span goes nowhere, yet costs a third of a request.
 */
const tracedWhereSeen = <E, R>(client: HttpClient.HttpClient.With<E, R>) => {
  const untraced = HttpClient.withTracerDisabledWhen(client, () => true)
  return (request: HttpClientRequest.HttpClientRequest) =>
    Effect.tracerWith((tracer) => (tracer === native ? untraced : client).execute(request))
}

/**
 * The variable a provider's key is read from for an account: the account's own reference when it
 * names the provider's key variable, else the provider's.
 */
const keySource = (
  provider: Provider,
  account: Option.Option<ConfigFile.Account>
): Option.Option<{ readonly variable: string } | { readonly value: string }> => {
  if (provider.key === undefined) return Option.none()
  const variable = provider.key.fromEnv
  const own = Option.flatMap(account, (found) => Option.fromNullable(found.env?.[variable]))
  return Option.some(Option.match(own, {
    onNone: () => ({ variable }),
    onSome: (value) => typeof value === "string" ? { value } : { variable: value.fromEnv }
  }))
}

const readKey = (
  place: Place.Place,
  source: Option.Option<{ readonly variable: string } | { readonly value: string }>
): Effect.Effect<Option.Option<Redacted.Redacted>, Failure.Failure> =>
  Option.match(source, {
    onNone: () => Effect.succeed(Option.none()),
    onSome: (found) =>
      "value" in found
        ? Effect.succeed(Option.some(Redacted.make(found.value)))
        : Config.redacted(found.variable).pipe(
          Effect.tap((key) => Secret.hold(Redacted.value(key))),
          Effect.map(Option.some),
          Effect.mapError(() =>
            new Failure.AuthRefused({ place, said: Failure.said(`no key: the variable ${found.variable} is not set`) })
          )
        )
  })

/**
 * The answer's stream, for the scope the response lives in: the session first, once the headers
 * are in; then the body read as it arrives, its events out as each piece completes them;
 * Unresponsive when a piece takes longer than `idle`.
 */
const streamed = (
  answer: Answer,
  id: string,
  response: HttpClientResponse.HttpClientResponse,
  stalled: () => Failure.Failure,
  idle: Duration.Duration,
  place: Place.Place
): Effect.Effect<Stream.Stream<Backend.Event, Failure.Failure>, never, Scope.Scope> =>
  Effect.map(Stream.toPull(response.stream), (pull) => {
    const decoder = new TextDecoder()
    const read = Effect.mapError(pull, Option.map((error) => cut(place, error.cause)))
    // Effect's live clock fires a sleep past a platform timer's 2^31 - 1 ms after 1 ms: an idle
    // time that long has no timer (nothing would wait 24.8 days for a byte).
    const body = Duration.toMillis(idle) > 2_147_483_647
      ? read
      : Effect.timeoutFail(read, { duration: idle, onTimeout: () => Option.some(stalled()) })
    let started = false
    const next: Effect.Effect<Chunk.Chunk<Backend.Event>, Option.Option<Failure.Failure>> = Effect.suspend(() => {
      if (!started) {
        started = true
        return Effect.succeed(Chunk.of(Backend.Event.SessionStarted({ sessionId: id })))
      }
      if (answer.over) return Effect.fail(Option.none())
      const out: Array<Backend.Event> = []
      return Effect.matchEffect(body, {
        onFailure: (end) =>
          Option.isSome(end)
            ? Effect.fail(end)
            : Effect.zipRight(answer.more(decoder.decode(), out), answer.end(out)).pipe(
              Effect.mapBoth({ onFailure: Option.some, onSuccess: () => Chunk.unsafeFromArray(out) })
            ),
        onSuccess: (chunk) => {
          let text = ""
          for (const bytes of chunk) text += decoder.decode(bytes, { stream: true })
          return Effect.mapBoth(answer.more(text, out), {
            onFailure: Option.some,
            onSuccess: () => Chunk.unsafeFromArray(out)
          })
        }
      })
    })
    return Stream.repeatEffectChunkOption(next)
  })

const timeout = (place: Place.Place, phase: "first-byte" | "whole-send", after: number) =>
  new Failure.Timeout({
    place,
    said: Failure.said(phase === "first-byte" ? "no first byte" : "the whole reply did not come in time"),
    phase,
    after: Duration.millis(after)
  })

/**
 * An effect cut at `by` (Clock millis) as a Timeout of `phase`, which says how long it had from
 * `sent`; no timer when `by` is unbounded.
 */
const within = <A>(
  effect: Effect.Effect<A, Failure.Failure>,
  place: Place.Place,
  phase: "first-byte" | "whole-send",
  sent: number,
  by: number
): Effect.Effect<A, Failure.Failure> =>
  Number.isFinite(by)
    ? Effect.clockWith((clock) =>
      Effect.timeoutFail(effect, {
        duration: Duration.millis(Math.max(0, by - clock.unsafeCurrentTimeMillis())),
        onTimeout: () => timeout(place, phase, by - sent)
      })
    )
    : effect

/** The clock a program has unless it installs one (a test installs the TestClock). */
const liveClock = Context.get(DefaultServices.liveServices, Clock.Clock)

/**
 * A reply within its limits: the response (its first byte) by `by`, the whole body read by
 * `whole`, both Clock millis. On the live clock the reply runs as one fiber under one timer, set
 * to `by` and moved to `whole` when the response comes: two nested `Effect.timeoutFail`s cost four
 * fibers and two sleeps a request, a third of a reply at concurrency. On any other clock (the
 * TestClock), the limits are Effect timeouts on that clock.
 */
const bounded = <R, A>(
  answered: Effect.Effect<R, Failure.Failure>,
  read: (response: R) => Effect.Effect<A, Failure.Failure>,
  place: Place.Place,
  clock: Clock.Clock,
  sent: number,
  limits: { readonly by: number; readonly whole: number }
): Effect.Effect<A, Failure.Failure> => {
  const { by, whole } = limits
  if (!Number.isFinite(by) && !Number.isFinite(whole)) return Effect.flatMap(answered, read)
  if (clock !== liveClock) {
    return within(
      Effect.flatMap(within(answered, place, "first-byte", sent, by), read),
      place,
      "whole-send",
      sent,
      whole
    )
  }
  let phase: "first-byte" | "whole-send" = "first-byte"
  let timer: { cancel: () => void } | undefined
  let fire: (() => void) | undefined
  const arm = (at: number) => {
    timer?.cancel()
    timer = Number.isFinite(at) ? Direct.at(at, () => fire!()) : undefined
  }
  const work = Effect.flatMap(answered, (response) =>
    Effect.suspend(() => {
      phase = "whole-send"
      if (fire !== undefined) arm(whole)
      return read(response)
    }))
  return Effect.flatMap(Effect.fork(work), (fiber) =>
    Effect.async<A, Failure.Failure>((resume) => {
      let done = false
      const finish = (effect: Effect.Effect<A, Failure.Failure>) => {
        if (done) return
        done = true
        timer?.cancel()
        resume(effect)
      }
      fire = () => {
        const late = phase === "first-byte" && by <= whole ? "first-byte" : "whole-send"
        finish(
          Effect.zipRight(
            Fiber.interrupt(fiber),
            Effect.fail(timeout(place, late, (late === "first-byte" ? by : whole) - sent))
          )
        )
      }
      arm(phase === "first-byte" ? Math.min(by, whole) : whole)
      fiber.addObserver(finish)
      return Effect.suspend(() => {
        done = true
        timer?.cancel()
        return Fiber.interrupt(fiber)
      })
    }))
}

/** @internal */
export const make = (
  provider: Provider,
  options: {
    readonly idle: Duration.Duration
    readonly firstByte?: Duration.Duration | undefined
    readonly dispatcher: Option.Option<Direct.Dispatcher>
  }
): Effect.Effect<Backend.Backend, never, HttpClient.HttpClient> =>
  Effect.map(HttpClient.HttpClient, (client): Backend.Backend => {
    const wire = wires[provider.kind]
    const base = provider.baseUrl.replace(/\/+$/, "")
    const url = `${base}${wire.turnPath}`
    const to = Direct.target(url)
    const dispatcher = Option.getOrUndefined(options.dispatcher)
    const execute = tracedWhereSeen(client)
    const scoped = tracedWhereSeen(HttpClient.withScope(client))
    const sources = new Map<string, Option.Option<{ readonly variable: string } | { readonly value: string }>>()
    const maxTokens = provider.maxTokens ?? 4096
    const stalledFor = `the answer's stream sent nothing for ${Duration.format(options.idle)}`
    const accounts = new Map<string, Option.Option<ConfigFile.Account>>()
    // The provider's own first-byte limit, on top of the engine's: its response's headers by then.
    const firstByte = options.firstByte === undefined ? Infinity : Duration.toMillis(options.firstByte)
    const answeredBy = <A, R>(place: Place.Place, effect: Effect.Effect<A, Failure.Failure, R>) =>
      Number.isFinite(firstByte)
        ? Effect.timeoutFail(effect, { duration: firstByte, onTimeout: () => timeout(place, "first-byte", firstByte) })
        : effect

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
          account: Option.Option<ConfigFile.Account>,
          _settings: Settings.Settings,
          opening: Backend.Opening
        ) {
          const source = keySource(provider, account)
          const key = yield* readKey(place, source)
          sources.set(Place.format(place), source)
          accounts.set(Place.format(place), account)
          const extra = yield* headersOf(place, provider.headers, account)
          const id = opening.resume ?? randomUUID()
          const sentHeaders = { accept: "text/event-stream", ...wire.headers(key), ...extra }
          const asked = HttpClientRequest.post(url).pipe(HttpClientRequest.setHeaders(sentHeaders))
          const directHeaders = { "content-type": "application/json", ...sentHeaders }
          const timedOut = (phase: "first-byte" | "whole-send", after: number) => timeout(place, phase, after)
          const request = (prompt: Backend.Prompt) =>
            HttpClientRequest.bodyUnsafeJson(asked, wire.body(place.model, prompt, maxTokens))
          const stalled = () => new Failure.Unresponsive({ place, said: Failure.said(stalledFor) })
          const viaClientTurn = (prompt: Backend.Prompt): Stream.Stream<Backend.Event, Failure.Failure> =>
            Stream.unwrapScoped(Effect.gen(function*() {
              const response = yield* answeredBy(
                place,
                scoped(request(prompt)).pipe(Effect.mapError((error) => unreached(place, error)))
              )
              if (!ok(response)) return yield* refused(place, response)
              return yield* streamed(new Answer(wire, place, prompt), id, response, stalled, options.idle, place)
            }))
          // The request as undici is given it, for a streamed turn and a reply alike.
          const directRequest = (
            dispatcher: Direct.Dispatcher,
            to: { readonly origin: string; readonly path: string },
            prompt: Backend.Prompt
          ): Direct.Request => ({
            dispatcher,
            origin: to.origin,
            path: to.path,
            url,
            headers: directHeaders,
            body: JSON.stringify(wire.body(place.model, prompt, maxTokens)),
            place
          })
          const directTurn = (
            dispatcher: Direct.Dispatcher,
            to: { readonly origin: string; readonly path: string },
            prompt: Backend.Prompt
          ): Stream.Stream<Backend.Event, Failure.Failure> => {
            const answer = new Answer(wire, place, prompt)
            return Direct.stream({
              ...directRequest(dispatcher, to, prompt),
              idle: Duration.toMillis(options.idle),
              stalled,
              firstByte,
              late: () => timeout(place, "first-byte", firstByte),
              started: Backend.Event.SessionStarted({ sessionId: id }),
              more: (text, out) => answer.more(text, out),
              end: (out) => answer.end(out),
              over: () => answer.over,
              drains: () => answer.over && !answer.overflowed,
              refused: (status, headers, head) =>
                refusal(place, { status, headers: Direct.flatHeaders(headers), body: head.text(), cut: head.cut })
            })
          }
          // The reply keeps its limits: the response's first byte (its status and headers) by
          // `by`, the whole body by `whole`.
          const viaClient = (
            prompt: Backend.Prompt,
            limits: { readonly by: number; readonly whole: number },
            clock: Clock.Clock,
            sent: number
          ) =>
            bounded(
              Effect.flatMap(
                Effect.mapError(execute(request(prompt)), (error) => unreached(place, error)),
                (response) => ok(response) ? Effect.succeed(response) : refused(place, response)
              ),
              (response) =>
                Effect.flatMap(
                  Effect.mapError(bodyOf(response), (error) => cut(place, error.cause)),
                  (body) => body === undefined ? Effect.fail(overlong(place)) : whole(wire, place, prompt, id, body)
                ),
              place,
              clock,
              sent,
              limits
            )
          return {
            id,
            turn: (prompt) =>
              dispatcher !== undefined && to !== undefined
                ? Stream.unwrap(Effect.clockWith((clock) =>
                  Effect.tracerWith((tracer) =>
                    Effect.succeed(
                      clock === liveClock && tracer === native
                        ? directTurn(dispatcher, to, prompt)
                        : viaClientTurn(prompt)
                    )
                  )
                ))
                : viaClientTurn(prompt),
            reply: (prompt, limits) =>
              Effect.clockWith((clock) => {
                const sent = clock.unsafeCurrentTimeMillis()
                // The provider's own first-byte limit, where it has one, comes first.
                const bounds = Number.isFinite(firstByte)
                  ? { ...limits, by: Math.min(limits.by, sent + firstByte) }
                  : limits
                // Straight to undici where the program gave a dispatcher, the clock is the live
                // one (the TestClock keeps Effect's timers) and no tracer wants the request's span.
                if (dispatcher !== undefined && to !== undefined && clock === liveClock) {
                  return Effect.tracerWith((tracer) =>
                    tracer === native
                      ? Direct.reply({
                        ...directRequest(dispatcher, to, prompt),
                        sent,
                        by: bounds.by,
                        whole: bounds.whole,
                        timeout: timedOut,
                        answer: (body) => whole(wire, place, prompt, id, body),
                        refused: (status, headers, head) =>
                          refusal(place, {
                            status,
                            headers: Direct.flatHeaders(headers),
                            body: head.text(),
                            cut: head.cut
                          })
                      })
                      : viaClient(prompt, bounds, clock, sent)
                  )
                }
                return viaClient(prompt, bounds, clock, sent)
              }),
            keepsLimits: true
          } satisfies Backend.Session
        }
      ),
      check: Effect.fn("HttpProvider.check")(function*(place: Place.Place) {
        const key = yield* readKey(place, sources.get(Place.format(place)) ?? keySource(provider, Option.none()))
        const extra = yield* headersOf(place, provider.headers, accounts.get(Place.format(place)) ?? Option.none())
        const response = yield* scoped(
          HttpClientRequest.get(`${base}${wire.modelsPath}`).pipe(
            HttpClientRequest.setHeaders({ ...wire.headers(key), ...extra })
          )
        ).pipe(Effect.mapError((error) => unreached(place, error)))
        if (!ok(response)) return yield* refused(place, response)
      }, Effect.scoped)
    }
  })
