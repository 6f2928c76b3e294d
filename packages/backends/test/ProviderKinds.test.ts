/**
 * What a real provider on 127.0.0.1 says, read as the kind it is (issue 22): a prompt refused by
 * content policy (an error code, or a 200 whose answer the filter stopped), the provider's own
 * timeout, an overload.
 */
import { describe, expect, it } from "@effect/vitest"
import type * as Backend from "@fallback/core/Backend"
import type * as Failure from "@fallback/core/Failure"
import * as Place from "@fallback/core/Place"
import * as Settings from "@fallback/core/Settings"
import { Effect, Option, Stream } from "effect"
import * as Http from "node:http"
import * as AnthropicMessages from "../src/AnthropicMessages.js"
import * as HttpProvider from "../src/HttpProvider.js"
import * as OpenAiCompatible from "../src/OpenAiCompatible.js"
import { type Transport, transports, withEnv } from "./transports.js"

interface Played {
  readonly status: number
  readonly type: "json" | "sse"
  readonly body: string
}

/** A provider that plays `played` to every request. */
const provider = (played: Played) =>
  Effect.acquireRelease(
    Effect.callback<Http.Server>((resume) => {
      const server = Http.createServer((request, response) => {
        request.resume()
        request.on("end", () => {
          response.writeHead(played.status, {
            "content-type": played.type === "sse" ? "text/event-stream" : "application/json"
          })
          response.end(played.body)
        })
      })
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
    }),
    (server) => Effect.sync(() => server.close())
  ).pipe(Effect.map((server) => `http://127.0.0.1:${(server.address() as { port: number }).port}`))

const sse = (...events: ReadonlyArray<readonly [string | undefined, object]>) =>
  events.map(([event, data]) => `${event === undefined ? "" : `event: ${event}\n`}data: ${JSON.stringify(data)}\n\n`)
    .join("")

type Dialect = "openai" | "anthropic"

const backendOf = (dialect: Dialect, url: string) =>
  dialect === "anthropic"
    ? AnthropicMessages.provider({ baseUrl: url, key: { fromEnv: "TEST_KEY" } })
    : OpenAiCompatible.provider({ name: "local", baseUrl: `${url}/v1`, key: { fromEnv: "TEST_KEY" } })

const placeOf = (dialect: Dialect) =>
  Place.Place.make({ cli: dialect === "anthropic" ? "anthropic" : "local", model: "m" })

const prompt: Backend.Prompt = { text: "hello", history: [] }

/** One turn against a provider playing `played`, as a stream or a whole reply: its failure. */
const failureOf = (dialect: Dialect, played: Played, way: "turn" | "reply", transport: Transport) =>
  Effect.gen(function*() {
    const url = yield* provider(played)
    const backend = yield* HttpProvider.make(backendOf(dialect, url))
    const session = yield* backend.open(placeOf(dialect), Option.none(), Settings.plain, {})
    return yield* Effect.flip(
      way === "turn"
        ? Stream.runCollect(session.turn(prompt))
        : session.reply!(prompt, { by: Infinity, whole: Infinity, deadline: Infinity })
    )
  }).pipe(
    Effect.scoped,
    withEnv({ TEST_KEY: "test-key-0123456789" }),
    Effect.provide(transport.layer)
  )

const json = (status: number, body: object): Played => ({ status, type: "json", body: JSON.stringify(body) })

const rows: ReadonlyArray<readonly [string, Dialect, Played, (failure: Failure.Failure) => void]> = [
  [
    "OpenAI's content_policy_violation is Refused, with the provider's reason",
    "openai",
    json(400, {
      error: {
        message: "Your request was rejected as a result of our safety system.",
        type: "invalid_request_error",
        code: "content_policy_violation"
      }
    }),
    (failure) => {
      expect(failure._tag).toBe("Refused")
      expect(failure.message).toContain("Your request was rejected as a result of our safety system.")
    }
  ],
  [
    "Azure's content filter (ResponsibleAIPolicyViolation) is Refused",
    "openai",
    json(400, {
      error: {
        message:
          "The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry.",
        type: null,
        param: "prompt",
        code: "content_filter",
        status: 400,
        innererror: {
          code: "ResponsibleAIPolicyViolation",
          content_filter_result: { hate: { filtered: true, severity: "high" } }
        }
      }
    }),
    (failure) => {
      expect(failure._tag).toBe("Refused")
      expect(failure.said).toContain("content management policy")
    }
  ],
  [
    "a 200 whose finish_reason is content_filter is Refused, not an empty answer",
    "openai",
    {
      status: 200,
      type: "sse",
      body: sse([undefined, { choices: [{ delta: { content: "" }, finish_reason: "content_filter" }] }]) +
        "data: [DONE]\n\n"
    },
    (failure) => {
      expect(failure._tag).toBe("Refused")
      expect(failure.message).toContain("finish_reason: content_filter")
    }
  ],
  [
    "Anthropic's stop_reason refusal is Refused",
    "anthropic",
    {
      status: 200,
      type: "sse",
      body: sse(
        ["message_start", { type: "message_start", message: { usage: { input_tokens: 3 } } }],
        ["message_delta", { type: "message_delta", delta: { stop_reason: "refusal" }, usage: { output_tokens: 0 } }],
        ["message_stop", { type: "message_stop" }]
      )
    },
    (failure) => {
      expect(failure._tag).toBe("Refused")
      expect(failure.message).toContain("stop_reason: refusal")
    }
  ],
  [
    "408 is the provider's own Timeout",
    "openai",
    json(408, { error: { message: "Request Timeout" } }),
    (failure) => expect(failure).toMatchObject({ _tag: "Timeout", phase: "provider" })
  ],
  [
    "504 is the provider's own Timeout, said as one",
    "anthropic",
    json(504, { type: "error", error: { type: "timeout_error", message: "Gateway Timeout" } }),
    (failure) => {
      expect(failure).toMatchObject({ _tag: "Timeout", phase: "provider" })
      expect(failure.message).toBe("anthropic timed out on its own side (504: timeout_error: Gateway Timeout)")
    }
  ],
  [
    "529 overloaded_error is RateLimited, said as an overload",
    "anthropic",
    json(529, { type: "error", error: { type: "overloaded_error", message: "Overloaded" } }),
    (failure) => {
      expect(failure).toMatchObject({ _tag: "RateLimited", reason: "overloaded" })
      expect(failure.message).toBe("anthropic is overloaded")
    }
  ],
  [
    "a 429 stays a rate limit",
    "openai",
    json(429, { error: { message: "Rate limit reached for requests", type: "requests", code: "rate_limit_exceeded" } }),
    (failure) => {
      expect(failure._tag).toBe("RateLimited")
      expect(failure.message).toBe("local is rate-limited")
    }
  ]
]

describe("a provider's words, read as their kind", () => {
  for (const transport of transports) {
    for (const way of ["turn", "reply"] as const) {
      for (const [name, dialect, played, check] of rows) {
        it.live(`${transport.name}: ${name} (by ${way})`, () =>
          Effect.map(failureOf(dialect, played, way, transport), check))
      }
    }
  }
})
