import { describe, expect, it } from "@effect/vitest"
import * as Account from "@fallback/core/Account"
import * as Backend from "@fallback/core/Backend"
import * as Place from "@fallback/core/Place"
import * as Secret from "@fallback/core/Secret"
import * as Settings from "@fallback/core/Settings"
import { MockProvider } from "@fallback/testkit"
import { Clock, Duration, Effect, Fiber, Option, Stream } from "effect"
import { TestClock } from "effect/testing"
import * as AnthropicMessages from "../src/AnthropicMessages.js"
import * as HttpProvider from "../src/HttpProvider.js"
import * as OpenAiCompatible from "../src/OpenAiCompatible.js"
import { transports, withEnv } from "./transports.js"

const bearer = "header-bearer-value-0123456789"
const env = withEnv({
  TEST_KEY: "plain-test-key-0123456789",
  ORG_BEARER: bearer,
  ORG_BEARER_TWO: "second-bearer-98765"
})

const headers = { "X-Org": "research", "X-Org-Token": { fromEnv: "ORG_BEARER" } } as const

const kinds = [
  {
    name: "Anthropic Messages",
    place: Place.Place.make({ cli: "anthropic", model: "model-a" }),
    provider: (url: string, extra: object) =>
      HttpProvider.Provider.make({
        ...AnthropicMessages.provider({ baseUrl: url, key: { fromEnv: "TEST_KEY" } }),
        ...extra
      })
  },
  {
    name: "OpenAI-compatible",
    place: Place.Place.make({ cli: "local", model: "model-a" }),
    provider: (url: string, extra: object) =>
      HttpProvider.Provider.make({
        ...OpenAiCompatible.provider({ name: "local", baseUrl: `${url}/v1`, key: { fromEnv: "TEST_KEY" } }),
        ...extra
      })
  }
] as const

const prompt: Backend.Prompt = { text: "hello", history: [] }

/** Waits, on the real clock, until the mock has seen `count` requests. */
const seen = (mock: MockProvider.Service, count: number) =>
  Effect.gen(function*() {
    while ((yield* mock.requests).total < count) yield* Effect.promise(() => new Promise((done) => setTimeout(done, 5)))
  })

describe("HttpProvider: the config's headers and timeouts", () => {
  for (const transport of transports) {
    describe(transport.name, () => {
      for (const kind of kinds) {
        describe(kind.name, () => {
          it.live("plain and environment headers reach the provider on every request, the check's too", () =>
            Effect.gen(function*() {
              const mock = yield* MockProvider.make({ bodies: true })
              const backend = yield* HttpProvider.make(kind.provider(mock.url, { headers }))
              const session = yield* backend.open(kind.place, Option.none(), Settings.plain, {})
              const events = yield* Stream.runCollect(session.turn(prompt))
              expect(Backend.textOf(events)).not.toBe("")
              yield* session.reply!(prompt, { by: Infinity, whole: Infinity, deadline: Infinity })
              yield* backend.check!(kind.place)
              const log = (yield* mock.requests).log
              expect(log.map((request) => request.route)).toHaveLength(3)
              for (const request of log) {
                expect(request.headers?.["x-org"]).toBe("research")
                expect(request.headers?.["x-org-token"]).toBe(bearer)
              }
            }).pipe(env, Effect.provide(transport.layer)))

          it.live("an account points a header's variable elsewhere; one not set is AuthRefused, naming no value", () =>
            Effect.gen(function*() {
              const mock = yield* MockProvider.make({ bodies: true })
              const backend = yield* HttpProvider.make(kind.provider(mock.url, { headers }))
              const two = new Account.Account({ name: "two", env: { ORG_BEARER: { fromEnv: "ORG_BEARER_TWO" } } })
              const session = yield* backend.open(kind.place, Option.some(two), Settings.plain, {})
              yield* Stream.runDrain(session.turn(prompt))
              expect((yield* mock.requests).log[0]?.headers?.["x-org-token"]).toBe("second-bearer-98765")
              const three = new Account.Account({ name: "three", env: { ORG_BEARER: { fromEnv: "NOT_SET_ANYWHERE" } } })
              const failed = yield* Effect.flip(backend.open(kind.place, Option.some(three), Settings.plain, {}))
              expect(failed._tag).toBe("AuthRefused")
              expect(failed.said).toBe("no value for the header X-Org-Token: the variable NOT_SET_ANYWHERE is not set")
            }).pipe(env, Effect.provide(transport.layer)))

          it.live("a header's value read from the environment is masked in any text fallback shows", () =>
            Effect.gen(function*() {
              const mock = yield* MockProvider.make()
              const backend = yield* HttpProvider.make(kind.provider(mock.url, { headers }))
              yield* backend.open(kind.place, Option.none(), Settings.plain, {})
              expect(Secret.mask(`the provider said: bad header ${bearer}`)).toBe("the provider said: bad header ***")
            }).pipe(env, Effect.provide(transport.layer)))

          it.effect("timeouts.firstByte: a response that has not begun by then is a first-byte Timeout, not before", () =>
            Effect.gen(function*() {
              const mock = yield* MockProvider.make()
              yield* mock.script([{ fault: "hang" }])
              const backend = yield* HttpProvider.make(kind.provider(mock.url, { timeouts: { firstByte: 10 } }))
              const session = yield* backend.open(kind.place, Option.none(), Settings.plain, {})
              const fiber = yield* Effect.forkChild(Effect.flip(Stream.runDrain(session.turn(prompt))))
              yield* seen(mock, 1)
              yield* TestClock.adjust("9999 millis")
              expect(fiber.pollUnsafe()).toBeUndefined()
              yield* TestClock.adjust("1 millis")
              const failed = yield* Fiber.join(fiber)
              expect(failed._tag === "Timeout" && [failed.phase, Duration.toMillis(failed.after)]).toEqual([
                "first-byte",
                10_000
              ])
            }).pipe(env, Effect.provide(transport.layer)))

          it.effect("timeouts.firstByte shortens a reply's own first-byte limit", () =>
            Effect.gen(function*() {
              const mock = yield* MockProvider.make()
              yield* mock.script([{ fault: "hang" }])
              const backend = yield* HttpProvider.make(kind.provider(mock.url, { timeouts: { firstByte: 10 } }))
              const session = yield* backend.open(kind.place, Option.none(), Settings.plain, {})
              const now = yield* Clock.currentTimeMillis
              const limits = { by: now + 30_000, whole: now + 60_000, deadline: now + 60_000 }
              const fiber = yield* Effect.forkChild(Effect.flip(session.reply!(prompt, limits)))
              yield* seen(mock, 1)
              yield* TestClock.adjust("9999 millis")
              expect(fiber.pollUnsafe()).toBeUndefined()
              yield* TestClock.adjust("1 millis")
              const failed = yield* Fiber.join(fiber)
              expect(failed._tag === "Timeout" && failed.phase).toBe("first-byte")
            }).pipe(env, Effect.provide(transport.layer)))

          it.live("timeouts.idle: a stream quiet for that long is Unresponsive; --idle (the option) says it over the file", () =>
            Effect.gen(function*() {
              const quiet = (idle: number, options: HttpProvider.Options) =>
                Effect.gen(function*() {
                  const mock = yield* MockProvider.make()
                  yield* mock.script([{ fault: "stall" }])
                  const backend = yield* HttpProvider.make(kind.provider(mock.url, { timeouts: { idle } }), options)
                  const session = yield* backend.open(kind.place, Option.none(), Settings.plain, {})
                  return yield* Effect.flip(Stream.runDrain(session.turn(prompt)))
                })
              // without the provider's own 0.2 s, the default 60 s would outlast the test
              const own = yield* quiet(0.2, {})
              expect([own._tag, own.said]).toEqual(["Unresponsive", "the answer's stream sent nothing for 200ms"])
              const flag = yield* quiet(600, { idle: "300 millis" })
              expect([flag._tag, flag.said]).toEqual(["Unresponsive", "the answer's stream sent nothing for 300ms"])
            }).pipe(env, Effect.provide(transport.layer)))
        })
      }
    })
  }
})
