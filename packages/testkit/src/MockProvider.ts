/**
 * A mock model provider on 127.0.0.1: one loopback HTTP server that speaks enough of Anthropic
 * Messages, OpenAI Responses and Chat Completions, and Gemini `streamGenerateContent` for the agent
 * CLIs and the HTTP providers, plays the fault each request is given, in the vendor's own error
 * shape, and counts what it was asked. It stops by itself after its lifetime (ten minutes).
 *
 * ```ts
 * // Effect: scoped, stopped when the scope closes
 * const mock = yield* MockProvider.make()
 * yield* mock.script([{ fault: "rate-limit", times: 1, retryAfter: 5 }]) // then answers
 * const counts = yield* mock.requests                                     // counts.byRoute.anthropic
 *
 * // plain Node, for scripts and other processes
 * const mock = await MockProvider.start()
 * // claude:   ANTHROPIC_BASE_URL=${mock.url}
 * // codex:    model_providers.mock.base_url="${mock.url}/v1", wire_api="responses"
 * // gemini:   GOOGLE_GEMINI_BASE_URL=${mock.url}
 * // opencode: provider options.baseURL "${mock.url}/v1"
 * await mock.stop()
 * ```
 *
 * A request's fault is, first, the first scripted rule it matches (by route, model and key; a rule
 * with `times` is used up); else `fault-<fault>[-<n>][-once|-x<k>]` written in its model or its key
 * (model `gpt-5.5-fault-quota`, key `key-fault-unauthorized`, model `gpt-fault-rate-limit-5`,
 * `gpt-fault-server-error-once`, `gpt-fault-slow-2000`); else `context-too-long` when a context
 * window is given for the model and the prompt is longer; else an answer. The number `n` is the
 * fault's: `rate-limit`'s retry-after and `quota`'s reset in seconds, `slow`'s and `slow-token`'s
 * delay and `flap`'s window in milliseconds. `-once` / `-x<k>`: the first `k` requests naming that
 * exact model (or key) play the fault, the rest are answered (until {@link Service.reset}).
 * Another process scripts it over HTTP: `POST /_mock/script` with `{ "rules": [...] }`,
 * `POST /_mock/reset`, `GET /_mock/requests`.
 *
 * The mock has its own clock, which `at` in its log, `slow`'s delays and `flap`'s window are on:
 * {@link make} takes the Effect `Clock` it runs with (the TestClock under `it.effect`: adjust it
 * to move them), {@link start} Node's `performance.now()` and timers; `clock` in its options
 * overrides both.
 *
 * A request that ends with an assistant message (a prefill: the answer so far) is logged with its
 * text, and answered with the rest of the answer when the answer begins with it (a continuation).
 *
 * @since 0.1.0
 */
import * as EffectClock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import * as internal from "./internal/mockProvider.js"
import * as wire from "./internal/mockWire.js"

/**
 * What a request is answered with.
 *
 * - `answer`: the model's answer (streamed when asked to stream).
 * - `think`: the answer after a thinking block, as extended thinking answers (Anthropic: a
 *   `thinking` block streamed as `thinking_delta` pieces and its `signature_delta`, or whole before
 *   the text; the other vendors answer plainly); a rule's `thinking` is what it thinks, its `pause`
 *   the milliseconds between the stream's pieces.
 * - `rate-limit`: 429 with `retry-after` and the vendor's rate-limit reset headers.
 * - `rate-limit-bare`: 429 with no hint of when to come back: no `retry-after`, no reset headers,
 *   no time in its message.
 * - `quota`: the vendor's quota or billing error, with reset headers `quotaReset` seconds ahead.
 * - `overloaded`: Anthropic 529, OpenAI and Gemini 503.
 * - `server-error`: 500. `bad-gateway`: 502 with an HTML page.
 * - `unauthorized`: 401 (Gemini: 400 `API_KEY_INVALID`, as Gemini answers a bad key).
 * - `forbidden`: 403. `model-not-found`: 404. `context-too-long`: 400 in the vendor's words.
 * - `content-filter`: 200 whose answer is refused (Chat Completions `finish_reason: "content_filter"`,
 *   Anthropic `stop_reason: "refusal"`, Responses `incomplete` for `content_filter`, Gemini `SAFETY`),
 *   with its usage. `content-policy`: 400 (OpenAI `content_policy_violation`).
 * - `no-prefill`: a request ending with an assistant prefill gets 400 ("does not support assistant
 *   message prefill"); any other is answered.
 * - `flap`: 503 (Anthropic 529) while the mock's clock is within its window (ms, a minute unless
 *   said) of the mock's start or reset, then answers.
 * - `reset`: the connection is reset (TCP RST) without a reply.
 * - `refused`: this connection is reset and the server stops listening for `downFor` milliseconds,
 *   so the requests after it are refused; {@link MockProvider.refusedUrl} refuses every time.
 * - `hang`: nothing is ever sent. `stall`: the stream opens, sends a piece, then nothing more.
 * - `slow`: nothing for its delay (ms on the mock's clock, 10 s unless said), then the whole reply.
 *   `slow-token`: a stream's headers and opening frames (role, message start) at once, its first
 *   content after the delay (a whole reply: all of it after the delay).
 * - `cut`: the stream opens, sends a piece, then the connection is closed mid-body (between events).
 *   `cut-mid-json`: the same, closed in the middle of the next event's JSON.
 * - `stream-error`: the stream opens, then carries the vendor's in-band error (Anthropic
 *   `overloaded_error`, Chat Completions and Responses `server_error`, Gemini `UNAVAILABLE`);
 *   a request that did not ask to stream gets `server-error`.
 * - `malformed-event`: the streamed answer with one event of half a JSON among the good ones; the
 *   rest completes (a whole reply: the answer).
 * - `no-sentinel`: the streamed answer, all its content and usage, without its closing sentinel
 *   (Chat `[DONE]`, Anthropic `message_stop`, Responses `response.completed`); the body ends cleanly.
 * - `error-as-200`: status 200 with the vendor's `overloaded` error as its body. `html-as-200`: 200
 *   with an HTML page saying the server is overloaded. `malformed-sse`: 200, an event stream whose
 *   one event carries half of the `overloaded` error (not JSON). `invalid-json`: 200 with half of it.
 * - `huge-error`: 500 whose body is the vendor's server error followed by filler, `size` bytes in
 *   all (200 MiB unless said). `endless-line`: 200, an event stream of one line of `size` bytes
 *   that never ends. Both count in {@link Request}'s `sent` the bytes the client took.
 * - Any fault: a rule's `headers` are set on its reply over the dialect's (`null` leaves one out).
 *
 * @since 0.1.0
 * @category models
 */
export type Fault = wire.Fault

/**
 * Every fault, in the order of {@link Fault}.
 *
 * @since 0.1.0
 * @category constants
 */
export const faults: ReadonlyArray<Fault> = wire.faults

/**
 * The faults whose reply is of the wrong shape or size (`malformed-event` … `endless-line`), not an
 * outage a vendor answers with: suites that hold the CLIs to a table of outages leave them out.
 *
 * @since 0.1.0
 * @category models
 */
export type Malformed = wire.Malformed

/**
 * Every {@link Malformed} fault.
 *
 * @since 0.1.0
 * @category constants
 */
export const malformed: ReadonlyArray<Fault> = wire.malformed

/**
 * Which API a request called: Anthropic Messages, OpenAI Responses, Chat Completions, Gemini,
 * the model list, or anything else (answered 404).
 *
 * @since 0.1.0
 * @category models
 */
export type Route = wire.Route

/**
 * One line of a script: the fault for requests that match its route, model and key (each matches
 * anything when not said), `times` times (forever when not said), with its `retry-after` seconds,
 * quota reset seconds, answer text, `slow`'s `delay` or `flap`'s `window` (ms on the mock's clock).
 *
 * @since 0.1.0
 * @category models
 */
export type Rule = internal.Rule

/**
 * How the mock runs: `port` (on 127.0.0.1; 0, the default, for any free one), `lifetime` (ms, ten
 * minutes), default `retryAfter` (30 s) and `quotaReset` (3600 s), `downFor` (ms a drawn `refused`
 * stops listening, 2000), the answer `text`, the context windows of models, in tokens at four
 * characters a token, and its `clock`.
 *
 * @since 0.1.0
 * @category models
 */
export type Options = internal.Options

/**
 * One request, as the mock saw it: `route`, `model`, `key`, the `fault` it played (`answer` once a
 * `-once` is used up or a `flap` is past its window; `overloaded` within it), `at` (ms since the
 * mock's start or reset, on its clock), `monotonic` (ms since its start on Node's monotonic clock),
 * `prefill` (the assistant prefill it ended with, if any), and how its reply `ended`.
 *
 * @since 0.1.0
 * @category models
 */
export type Request = internal.Request

/**
 * How a reply ended: `complete` (the answer, sent to its end), `error` (an HTTP error or an error
 * inside a 200), `refused` (a content refusal or a refused prefill), `cut` (the socket closed
 * mid-reply), `reset` (reset before any byte), `stalled` (part of it sent, then silence, the
 * connection open), `silent` (nothing ever sent), `abandoned` (the client went away before the
 * mock was done), `pending` (not yet).
 *
 * @since 0.1.0
 * @category models
 */
export type Ended = internal.Ended

/**
 * A clock for the mock: `now` in milliseconds (any origin) and `sleep`.
 *
 * @since 0.1.0
 * @category models
 */
export type Clock = internal.Clock

/**
 * What the mock was asked: the total, counts per route, model, key and fault, and every request
 * in order.
 *
 * @since 0.1.0
 * @category models
 */
export type Counts = internal.Counts

/**
 * A running mock for plain Node: its URL, a URL that refuses connections, its script and counts,
 * `stop`, and `stopped`, which settles once it has stopped (by `stop` or at its lifetime's end).
 *
 * @since 0.1.0
 * @category models
 */
export type Running = internal.Running

/**
 * Starts a mock outside Effect, on 127.0.0.1 and a free port; `stop` ends it and every connection.
 *
 * @example
 * ```ts
 * import { MockProvider } from "@fallback/testkit"
 *
 * const mock = await MockProvider.start()
 * mock.script([{ fault: "rate-limit", times: 1, retryAfter: 2 }])
 * // point a client at mock.url (Anthropic Messages, Gemini) or `${mock.url}/v1` (OpenAI)
 * await mock.stop()
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const start = (options?: Options): Promise<Running> => internal.start(options)

/**
 * What a running mock offers an Effect program.
 *
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** `http://127.0.0.1:PORT`, without a path. */
  readonly url: string
  /** A loopback URL where nothing listens: every connection is refused. */
  readonly refusedUrl: string
  /** Replaces the script. */
  readonly script: (rules: ReadonlyArray<Rule>) => Effect.Effect<void>
  /** What it was asked so far. */
  readonly requests: Effect.Effect<Counts>
  /** Forgets the script and the counts. */
  readonly reset: Effect.Effect<void>
  /** Stops listening for a while: connections are refused, then it listens on the same port again. */
  readonly refuse: (duration: Duration.Input) => Effect.Effect<void>
}

/**
 * A running mock, as an Effect service.
 *
 * @since 0.1.0
 * @category services
 */
export class MockProvider extends Context.Service<MockProvider, Service>()("@fallback/testkit/MockProvider") {
  /**
   * A mock for the life of the layer.
   *
   * @since 0.1.0
   */
  static readonly layer = (options?: Options): Layer.Layer<MockProvider> => Layer.effect(MockProvider, make(options))
}

/**
 * Starts a mock for the life of the scope.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options?: Options): Effect.Effect<Service, never, Scope.Scope> =>
  Effect.gen(function*() {
    const context = yield* Effect.context<never>()
    const clock = yield* EffectClock.clockWith(Effect.succeed)
    const onEffect: internal.Clock = {
      now: () => clock.currentTimeMillisUnsafe(),
      sleep: (millis) => Effect.runPromiseWith(context)(Effect.sleep(Duration.millis(millis)))
    }
    const started = { ...options, clock: options?.clock ?? onEffect }
    return yield* Effect.acquireRelease(
      Effect.promise(() => internal.start(started)),
      (running) => Effect.promise(running.stop)
    )
  }).pipe(Effect.map((running): Service => ({
    url: running.url,
    refusedUrl: running.refusedUrl,
    script: (rules) => Effect.sync(() => running.script(rules)),
    requests: Effect.sync(running.requests),
    reset: Effect.sync(running.reset),
    refuse: (duration) => Effect.promise(() => running.refuse(Duration.toMillis(duration)))
  })))
