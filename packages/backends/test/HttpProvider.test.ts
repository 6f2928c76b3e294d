import { NodeHttpClient } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import * as Account from "@fallback/core/Account"
import * as Backend from "@fallback/core/Backend"
import * as Deadline from "@fallback/core/Deadline"
import type * as Failure from "@fallback/core/Failure"
import * as Place from "@fallback/core/Place"
import * as Settings from "@fallback/core/Settings"
import { Fibers, MockProvider } from "@fallback/testkit"
import { Clock, DateTime, Duration, Effect, Fiber, Option, Stream } from "effect"
import { TestClock } from "effect/testing"
import * as AnthropicMessages from "../src/AnthropicMessages.js"
import * as HttpProvider from "../src/HttpProvider.js"
import * as OpenAiCompatible from "../src/OpenAiCompatible.js"
import { settled, slowServer, type Transport, transports, withEnv } from "./transports.js"

const secret = "plain-test-secret-0123456789"

const keys = withEnv({ TEST_KEY: secret, TEST_KEY_TWO: "second-account-key" })

interface Kind {
  readonly name: string
  readonly place: (model: string) => Place.Place
  readonly backend: (url: string, options?: HttpProvider.Options) => HttpProvider.Provider
}

const kinds: ReadonlyArray<Kind> = [
  {
    name: "Anthropic Messages",
    place: (model) => Place.Place.make({ cli: "anthropic", model }),
    backend: (url) => AnthropicMessages.provider({ baseUrl: url, key: { fromEnv: "TEST_KEY" } })
  },
  {
    name: "OpenAI-compatible",
    place: (model) => Place.Place.make({ cli: "local", model }),
    backend: (url) => OpenAiCompatible.provider({ name: "local", baseUrl: `${url}/v1`, key: { fromEnv: "TEST_KEY" } })
  }
]

const prompt: Backend.Prompt = { text: "hello", history: [{ prompt: "before", answer: "earlier answer" }] }

/** The two ways a session answers: a stream of events (`turn`), or all of them at once (`reply`). */
type Way = "turn" | "reply"

const ways: ReadonlyArray<Way> = ["turn", "reply"]

/** One turn at a place through a fresh session, taken `way`: its events, or its failure. */
const taken = (way: Way, transport: Transport) =>
(
  provider: HttpProvider.Provider,
  place: Place.Place,
  options: HttpProvider.Options = {},
  account: Option.Option<Account.Account> = Option.none()
) =>
  Effect.gen(function*() {
    const backend = yield* HttpProvider.make(provider, options)
    const session = yield* backend.open(place, account, Settings.plain, {})
    return way === "turn"
      ? yield* Stream.runCollect(session.turn(prompt))
      : yield* session.reply!(prompt, { by: Infinity, whole: Infinity, deadline: Infinity })
  }).pipe(Effect.scoped, keys, Effect.provide(transport.layer))

const expected: ReadonlyArray<
  readonly [MockProvider.Fault, Failure.Kind, Failure.Kind, ((failure: Failure.Failure, now: number) => void)?]
> = [
  ["rate-limit", "RateLimited", "RateLimited", (failure) => {
    expect(failure._tag === "RateLimited" && failure.retryAfter && Duration.toSeconds(failure.retryAfter)).toBe(7)
  }],
  // the mock's reset headers say an hour: read as the longest a provider can ask for, 30 minutes
  ["quota", "QuotaExhausted", "QuotaExhausted", (failure, now) => {
    const until = failure._tag === "QuotaExhausted" && failure.until ? DateTime.toEpochMillis(failure.until) : 0
    expect(Math.abs(until - (now + 1_800_000))).toBeLessThan(5_000)
  }],
  ["overloaded", "RateLimited", "RateLimited"],
  ["server-error", "Unknown", "Unknown"],
  ["bad-gateway", "ConnectionLost", "ConnectionLost", (failure) => expect(failure.said).toContain("502 Bad Gateway")],
  ["unauthorized", "AuthRefused", "AuthRefused"],
  ["forbidden", "AuthRefused", "AuthRefused"],
  ["model-not-found", "ModelNotFound", "ModelNotFound"],
  ["context-too-long", "ContextTooLong", "ContextTooLong"],
  ["reset", "ConnectionLost", "ConnectionLost"],
  [
    "cut",
    "ConnectionLost",
    "ConnectionLost",
    (failure) => expect(failure.said).toContain("in the middle of the answer")
  ],
  ["stream-error", "RateLimited", "Unknown"]
]

describe("HTTP providers against the mock provider", () => {
  for (const transport of transports) {
    describe(transport.name, () => {
      for (const [index, kind] of kinds.entries()) {
        describe(kind.name, () => {
          for (const way of ways) {
            const turn = taken(way, transport)
            const failure = (...args: Parameters<typeof turn>) => Effect.flip(turn(...args))
            describe(`by ${way}`, () => {
              it.live("answers: the session, the text in pieces, then the result with the provider's usage", () =>
                Effect.gen(function*() {
                  const mock = yield* MockProvider.make({ text: "the answer is 42" })
                  const events = yield* turn(kind.backend(mock.url), kind.place("model-a"))
                  expect(events[0]!._tag).toBe("SessionStarted")
                  const texts = events.flatMap((event) => event._tag === "Text" ? [event.text] : [])
                  expect(texts.length).toBeGreaterThan(1)
                  expect(texts.join("")).toBe("the answer is 42")
                  const result = events.at(-1)!
                  expect(result._tag === "Result" && result.text).toBe("the answer is 42")
                  expect(result._tag === "Result" && result.usage.output).toBe(4)
                  const counts = yield* mock.requests
                  expect(counts.byModel).toEqual({ "model-a": 1 })
                  expect(counts.byKey).toEqual({ [secret]: 1 })
                }))

              for (const [fault, anthropic, openAi, check] of expected) {
                const kindOf = index === 0 ? anthropic : openAi
                it.live(`${fault} is ${kindOf}`, () =>
                  Effect.gen(function*() {
                    const mock = yield* MockProvider.make()
                    yield* mock.script([{ fault, retryAfter: 7 }])
                    const now = Date.now()
                    const failed = yield* failure(kind.backend(mock.url), kind.place("model-a"))
                    expect(failed._tag).toBe(kindOf)
                    expect(Place.format(failed.place)).toBe(Place.format(kind.place("model-a")))
                    check?.(failed, now)
                    expect(JSON.stringify(failed) + failed.message).not.toContain(secret)
                  }))
              }

              it.live("connection refused is ConnectionLost", () =>
                Effect.gen(function*() {
                  const mock = yield* MockProvider.make()
                  const failed = yield* failure(kind.backend(mock.refusedUrl), kind.place("model-a"))
                  expect(failed._tag).toBe("ConnectionLost")
                  expect(failed.said).toContain("ECONNREFUSED")
                }))

              if (way === "turn") {
                it.live("a stream that stops moving is Unresponsive after the idle time", () =>
                  Effect.gen(function*() {
                    const mock = yield* MockProvider.make()
                    yield* mock.script([{ fault: "stall" }])
                    const failed = yield* failure(kind.backend(mock.url), kind.place("model-a"), { idle: "200 millis" })
                    expect(failed._tag).toBe("Unresponsive")
                  }))
              } else {
                // Issue 25: a whole reply is no longer left to the engine's whole-reply limit when it stalls.
                it.live("a reply that stops moving is Unresponsive after the idle time too", () =>
                  Effect.gen(function*() {
                    const mock = yield* MockProvider.make()
                    yield* mock.script([{ fault: "stall" }])
                    const failed = yield* failure(kind.backend(mock.url), kind.place("model-a"), { idle: "200 millis" })
                    expect(failed._tag).toBe("Unresponsive")
                  }))
              }

              it.live("a request that never answers sends nothing, not even the session (the engine's first-byte timeout owns it)", () =>
                Effect.gen(function*() {
                  const mock = yield* MockProvider.make()
                  yield* mock.script([{ fault: "hang" }])
                  const outcome = yield* turn(kind.backend(mock.url), kind.place("model-a")).pipe(
                    Effect.timeout("300 millis"),
                    Effect.option
                  )
                  expect(outcome).toEqual(Option.none())
                }))

              it.live("an account's key reference replaces the provider's; an unset variable is AuthRefused", () =>
                Effect.gen(function*() {
                  const mock = yield* MockProvider.make()
                  const second = new Account.Account({ name: "two", env: { TEST_KEY: { fromEnv: "TEST_KEY_TWO" } } })
                  yield* turn(kind.backend(mock.url), kind.place("model-a"), {}, Option.some(second))
                  expect((yield* mock.requests).byKey).toEqual({ "second-account-key": 1 })
                  const unset = new Account.Account({
                    name: "three",
                    env: { TEST_KEY: { fromEnv: "NOT_SET_ANYWHERE" } }
                  })
                  const failed = yield* failure(kind.backend(mock.url), kind.place("model-a"), {}, Option.some(unset))
                  expect(failed._tag).toBe("AuthRefused")
                  expect(failed.said).toContain("NOT_SET_ANYWHERE")
                }))

              it.live("the conversation so far is sent with the prompt", () =>
                Effect.gen(function*() {
                  const mock = yield* MockProvider.make({ contextWindows: { small: 8 } })
                  const failed = yield* failure(kind.backend(mock.url), kind.place("small"))
                  expect(failed._tag).toBe("ContextTooLong")
                }))
            })
          }

          // Both transports: the direct one sends the probe to undici too.
          it.live("check probes the model list with the key", () =>
            Effect.gen(function*() {
              const mock = yield* MockProvider.make()
              const backend = yield* HttpProvider.make(kind.backend(mock.url))
              yield* backend.check!(kind.place("model-a")).pipe(keys)
              yield* mock.script([{ fault: "unauthorized" }])
              const failed = yield* Effect.flip(
                backend.check!(kind.place("model-a")).pipe(keys)
              )
              expect(failed._tag).toBe("AuthRefused")
              expect((yield* mock.requests).byRoute).toEqual({ models: 2 })
            }).pipe(Effect.provide(transport.layer)))

          describe("a reply keeps its limits, and nothing is left running", () => {
            /** A reply given `by` and `whole`, in ms from now; its failure and how long it took. */
            const limited = (fault: MockProvider.Fault, by: number, whole: number) =>
              Effect.gen(function*() {
                const mock = yield* MockProvider.make()
                yield* mock.script([{ fault }])
                const backend = yield* HttpProvider.make(kind.backend(mock.url))
                const session = yield* backend.open(kind.place("model-a"), Option.none(), Settings.plain, {})
                const now = Date.now()
                const limits = { by: now + by, whole: now + whole, deadline: now + whole }
                const failed = yield* Effect.flip(session.reply!(prompt, limits))
                return { failed, took: Date.now() - now }
              }).pipe(keys, Effect.provide(transport.layer))

            it.live("no response by `by` is a first-byte Timeout then", () =>
              Effect.gen(function*() {
                const { failed, took } = yield* limited("hang", 300, 5_000)
                expect(failed._tag === "Timeout" && failed.phase).toBe("first-byte")
                expect(took).toBeGreaterThanOrEqual(290)
                expect(took).toBeLessThan(2_000)
              }))

            it.live("a body that stops coming is a whole-send Timeout at `whole`, though it started in time", () =>
              Effect.gen(function*() {
                const { failed, took } = yield* limited("stall", 300, 800)
                expect(failed._tag === "Timeout" && failed.phase).toBe("whole-send")
                expect(took).toBeGreaterThanOrEqual(790)
                expect(took).toBeLessThan(2_500)
              }))

            // The limits are core's Deadline on either transport (one race, written once): a reply that comes by
            // `by` starts what one Deadline.cutAt of a waiting effect starts (its fiber, waited on), nothing more.
            it.live("a reply that comes in time starts no fiber beyond one Deadline cut and leaves none running", () =>
              Effect.gen(function*() {
                const mock = yield* MockProvider.make()
                const backend = yield* HttpProvider.make(kind.backend(mock.url))
                const session = yield* backend.open(kind.place("model-a"), Option.none(), Settings.plain, {})
                const now = Date.now()
                const limits = { by: now + 30_000, whole: now + 60_000, deadline: now + 60_000 }
                let events: ReadonlyArray<Backend.Event> = []
                const forked = yield* Fibers.started(
                  Effect.map(session.reply!(prompt, limits), (got) => void (events = got))
                )
                const cut = yield* Fibers.started(
                  Deadline.cutAt(Effect.sleep("1 millis"), Date.now() + 60_000, () => "late")
                )
                expect(Backend.textOf(events)).not.toBe("")
                expect(forked).toBeLessThanOrEqual(cut)
                expect(yield* settled(yield* NodeHttpClient.Dispatcher, 0)).toBe(0)
              }).pipe(keys, Effect.provide(transport.layer)))

            // Its own server speaks Chat Completions.
            if (kind.name === "OpenAI-compatible") {
              it.live("limits further off than a platform timer holds (2^31 - 1 ms, about 24.8 days) do not cut an answer that takes a while", () =>
                Effect.gen(function*() {
                  const url = yield* slowServer
                  const backend = yield* HttpProvider.make(
                    OpenAiCompatible.provider({ name: "local", baseUrl: `${url}/v1` }),
                    { idle: "30 days" }
                  )
                  const session = yield* backend.open(
                    Place.Place.make({ cli: "local", model: "m" }),
                    Option.none(),
                    Settings.plain,
                    {}
                  )
                  const far = Date.now() + 30 * 86_400_000
                  const replied = yield* session.reply!(prompt, { by: far - 1, whole: far, deadline: far })
                  expect(Backend.textOf(replied)).toBe("hi")
                  const streamed = yield* Stream.runCollect(session.turn(prompt))
                  expect(Backend.textOf(streamed)).toBe("hi")
                }).pipe(Effect.provide(transport.layer)))
            }

            it.live("the config's headers reach the provider, and its own first-byte limit ends a turn or a reply that has not begun", () =>
              Effect.gen(function*() {
                const mock = yield* MockProvider.make({ bodies: true })
                const provider = HttpProvider.Provider.make({
                  ...kind.backend(mock.url),
                  headers: { "X-Org": "research" },
                  timeouts: { firstByte: 0.2 }
                })
                const backend = yield* HttpProvider.make(provider)
                const session = yield* backend.open(kind.place("model-a"), Option.none(), Settings.plain, {})
                const far = Date.now() + 60_000
                yield* Stream.runDrain(session.turn(prompt))
                yield* session.reply!(prompt, { by: far, whole: far, deadline: far })
                expect((yield* mock.requests).log.map((request) => request.headers?.["x-org"])).toEqual([
                  "research",
                  "research"
                ])
                yield* mock.script([{ fault: "hang" }])
                const streamed = yield* Effect.flip(Stream.runDrain(session.turn(prompt)))
                expect(streamed._tag === "Timeout" && streamed.phase).toBe("first-byte")
                const replied = yield* Effect.flip(session.reply!(prompt, { by: far, whole: far, deadline: far }))
                expect(replied._tag === "Timeout" && replied.phase).toBe("first-byte")
                expect(yield* settled(yield* NodeHttpClient.Dispatcher, 0)).toBe(0)
              }).pipe(keys, Effect.provide(transport.layer)))

            it.live("a reply that runs out of time, or that its caller lets go, leaves no request running", () =>
              Effect.gen(function*() {
                const mock = yield* MockProvider.make()
                yield* mock.script([{ fault: "hang" }])
                const dispatcher = yield* NodeHttpClient.Dispatcher
                const running = (expected: number) => settled(dispatcher, expected)
                const backend = yield* HttpProvider.make(kind.backend(mock.url))
                const session = yield* backend.open(kind.place("model-a"), Option.none(), Settings.plain, {})
                const now = Date.now()
                const failed = yield* Effect.flip(
                  session.reply!(prompt, { by: now + 100, whole: now + 5_000, deadline: now + 5_000 })
                )
                expect(failed._tag === "Timeout" && failed.phase).toBe("first-byte")
                expect(yield* running(0)).toBe(0)
                const fiber = yield* Effect.forkChild(
                  session.reply!(prompt, { by: Infinity, whole: Infinity, deadline: Infinity })
                )
                expect(yield* running(1)).toBe(1)
                yield* Fiber.interrupt(fiber)
                expect(yield* running(0)).toBe(0)
                expect((yield* mock.requests).total).toBe(2)
              }).pipe(keys, Effect.provide(transport.layer)))

            it.live("a stream let go before its body ends leaves no request running", () =>
              Effect.gen(function*() {
                const mock = yield* MockProvider.make()
                yield* mock.script([{ fault: "stall" }])
                const dispatcher = yield* NodeHttpClient.Dispatcher
                const backend = yield* HttpProvider.make(kind.backend(mock.url))
                const session = yield* backend.open(kind.place("model-a"), Option.none(), Settings.plain, {})
                const first = yield* Stream.runCollect(Stream.take(session.turn(prompt), 2))
                expect(first.map((event) => event._tag)).toEqual(["SessionStarted", "Text"])
                expect(yield* settled(dispatcher, 0)).toBe(0)
                expect((yield* mock.requests).total).toBe(1)
              }).pipe(keys, Effect.provide(transport.layer)))

            // Each read of the body is bounded by `idle` through core's Deadline, on either transport: a read whose
            // pieces are there already forks one fiber that ends at once, so "no fiber of its own" no longer holds.
            it.live("a turn streamed in full starts fibers for its reads and leaves none running", () =>
              Effect.gen(function*() {
                const mock = yield* MockProvider.make({ text: "the answer is 42" })
                const backend = yield* HttpProvider.make(kind.backend(mock.url))
                const session = yield* backend.open(kind.place("model-a"), Option.none(), Settings.plain, {})
                let events: ReadonlyArray<Backend.Event> = []
                const forked = yield* Fibers.started(
                  Effect.map(Stream.runCollect(session.turn(prompt)), (got) => void (events = got))
                )
                expect(Backend.textOf(events)).toBe("the answer is 42")
                // What running a stream forks by itself, whatever the stream.
                const runner = yield* Fibers.started(Stream.runCollect(Stream.make(1)))
                expect(forked).toBeGreaterThan(runner)
                expect(yield* settled(yield* NodeHttpClient.Dispatcher, 0)).toBe(0)
              }).pipe(keys, Effect.provide(transport.layer)))

            it.effect("on the TestClock, no response by `by` is a first-byte Timeout when the clock gets there", () =>
              Effect.gen(function*() {
                const mock = yield* MockProvider.make()
                yield* mock.script([{ fault: "hang" }])
                const backend = yield* HttpProvider.make(kind.backend(mock.url))
                const session = yield* backend.open(kind.place("model-a"), Option.none(), Settings.plain, {})
                const now = yield* Clock.currentTimeMillis
                const limits = { by: now + 30_000, whole: now + 60_000, deadline: now + 60_000 }
                const fiber = yield* Effect.forkChild(Effect.flip(session.reply!(prompt, limits)))
                while ((yield* mock.requests).total === 0) {
                  yield* Effect.promise(() => new Promise((done) => setTimeout(done, 5)))
                }
                yield* TestClock.adjust("29 seconds")
                expect(fiber.pollUnsafe()).toBeUndefined()
                yield* TestClock.adjust("1 second")
                const failed = yield* Fiber.join(fiber)
                expect(failed._tag === "Timeout" && failed.phase).toBe("first-byte")
                expect(failed._tag === "Timeout" && Duration.toMillis(failed.after)).toBe(30_000)
              }).pipe(keys, Effect.provide(transport.layer)))
          })
        })
      }
    })
  }
})
