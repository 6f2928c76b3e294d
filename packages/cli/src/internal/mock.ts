import * as MockProvider from "@fallback/testkit/MockProvider"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Console from "effect/Console"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

import { text, toggle } from "./config.js"
import { formatTime, parseTime } from "./seconds.js"

/**
 * `mock` was given a port or a lifetime it cannot use, or its port is taken.
 *
 * @internal
 */
export class InvalidMock extends Schema.TaggedError<InvalidMock>("@fallback/cli/InvalidMock")("InvalidMock", {
  reason: Schema.String
}) {
  override get message(): string {
    return this.reason
  }
}

const port = Flag.Int("port").pipe(
  Flag.withMetavar("N"),
  Flag.withDescription("the port on 127.0.0.1 (default 0: any free one, printed)"),
  Flag.optional
)
const lifetime = text("lifetime", "TIME", "how long it runs before it stops by itself (10m; at most 24h)")
const json = toggle(
  "json",
  "print one JSON line (url, port, refusedUrl, lifetime in seconds) instead of the text",
  "j"
)

const longest = Duration.hours(24)

const what: Readonly<Record<MockProvider.Fault, string>> = {
  answer: "the model's answer, streamed when asked to stream",
  think: "the answer after a thinking block (Anthropic; the others answer plainly)",
  "rate-limit": "429 with retry-after (rate-limit-S: S seconds; 30) and the vendor's reset headers",
  "rate-limit-bare": "429 with no retry-after, no reset headers, no \"try again in\"",
  quota: "the vendor's quota or billing error",
  overloaded: "Anthropic 529, OpenAI and Gemini 503",
  "server-error": "500",
  "bad-gateway": "502 with an HTML page",
  unauthorized: "401 (Gemini: 400 API_KEY_INVALID)",
  forbidden: "403",
  "model-not-found": "404",
  "context-too-long": "400 in the vendor's words",
  "content-filter": "200 whose answer the content filter stopped (finish_reason content_filter, Anthropic refusal)",
  "content-policy": "400 content_policy_violation",
  "no-prefill": "answers, but refuses (400) a request that continues an answer (an assistant prefill)",
  "flap": "503 (Anthropic 529) for flap-MS after the mock starts (60000), then answers",
  reset: "the connection reset without a reply",
  refused: "the connection reset, then nothing listens for 2s",
  hang: "nothing is ever sent",
  slow: "nothing at all for slow-MS milliseconds, then the whole reply",
  "slow-token": "headers and opening frames at once, the first content after slow-token-MS (10000)",
  stall: "the stream opens, sends a piece, then nothing more",
  cut: "the stream opens, sends a piece, then the connection closes",
  "cut-mid-json": "the stream opens, then the connection closes in the middle of an event",
  "stream-error": "the stream opens, then carries the vendor's in-band error",
  "malformed-event": "the streamed answer with one event that is not JSON among the others",
  "no-sentinel": "the whole streamed answer and its usage, the body ending without [DONE] / message_stop",
  "error-as-200": "200 whose body is the vendor's overloaded error",
  "html-as-200": "200 with an HTML page saying the server is overloaded",
  "malformed-sse": "200, an event stream whose one event is half an overloaded error (not JSON)",
  "invalid-json": "200 with half of an overloaded error",
  "huge-error": "500 whose body runs on with filler, 200 MiB (a scripted rule's size)",
  "endless-line": "200, an event stream of one line that never ends, 200 MiB (a rule's size)"
}

const width = Math.max(...MockProvider.faults.map((fault) => fault.length)) + 2

const description = [
  "Starts the loopback model provider `fallback demo` uses, bound to 127.0.0.1 only, and prints its URL. It",
  "speaks Anthropic Messages (POST /v1/messages), OpenAI Responses and Chat Completions (POST /v1/responses,",
  "/v1/chat/completions, GET /v1/models) and Gemini (POST /v1beta/models/MODEL:streamGenerateContent), so an",
  "agent CLI or a provider in the config can be pointed at it. It stops at the end of --lifetime (exit 0), or",
  "on ctrl+c (SIGINT, exit 130) or SIGTERM (exit 143).",
  "",
  "A request's fault is the first rule scripted over HTTP that it matches; else fault-FAULT written in its",
  "model or its key (model claude-fault-rate-limit, key key-fault-unauthorized; FAULT-once or FAULT-xK: the first",
  "K requests of that model play it, then it answers); else it is answered. The faults:",
  ...MockProvider.faults.map((fault) => `  ${fault.padEnd(width)}${what[fault]}`),
  "",
  "Another process scripts it over HTTP:",
  "  POST /_mock/script    {\"rules\":[{\"fault\":\"rate-limit\",\"model\":M,\"key\":K,\"route\":R,\"times\":N,",
  "                        \"retryAfter\":S,\"text\":T}]}: every field but fault may be left out; a rule with",
  "                        times is used up after N requests; the rules replace those scripted before;",
  "                        a think rule may say what it thinks (\"thinking\") and the ms between pieces (\"pause\")",
  "  POST /_mock/reset     forget the rules and the requests seen",
  "  GET  /_mock/requests  the requests seen: total, byRoute, byModel, byKey, byFault, and each in order",
  "(route is one of anthropic, responses, chat, gemini, models.)",
  "",
  "  fallback mock",
  "  fallback mock --port 8080 --lifetime 1h",
  "  fallback mock --json"
].join("\n")

/** @internal */
export const mock = Command.make("mock", { port, lifetime, json }, (args) =>
  Effect.gen(function*() {
    const at = Option.getOrElse(args.port, () => 0)
    if (!Number.isInteger(at) || at < 0 || at > 65535) {
      return yield* new InvalidMock({ reason: `--port ${at}: a port is 0 (any free one) to 65535` })
    }
    const runs = Option.isNone(args.lifetime)
      ? Duration.minutes(10)
      : yield* Effect.fromResult(parseTime(args.lifetime.value))
    if (Duration.isZero(runs) || Duration.isGreaterThan(runs, longest)) {
      return yield* new InvalidMock({
        reason: `--lifetime ${Option.getOrElse(args.lifetime, () => "")}: more than 0 and at most 24h (10m, 1h…)`
      })
    }
    const running = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () => MockProvider.start({ port: at, lifetime: Duration.toMillis(runs) }),
        catch: (error) =>
          new InvalidMock({
            reason: (error as NodeJS.ErrnoException | undefined)?.code === "EADDRINUSE"
              ? `--port ${at}: 127.0.0.1:${at} is taken; give another port, or leave --port out for any free one`
              : `the mock could not listen on 127.0.0.1:${at}: ${String((error as Error | undefined)?.message)}`
          })
      }),
      (running) => Effect.promise(running.stop)
    )
    const url = running.url
    yield* Console.log(
      args.json
        ? JSON.stringify({
          url,
          port: running.port,
          refusedUrl: running.refusedUrl,
          lifetime: Duration.toSeconds(runs)
        })
        : [
          `fallback mock: a model provider at ${url} for ${formatTime(runs)} (ctrl+c stops it sooner)`,
          `  claude     ANTHROPIC_BASE_URL=${url}`,
          `  codex      -c model_providers.mock.base_url=${url}/v1 (wire_api "responses")`,
          `  gemini     GOOGLE_GEMINI_BASE_URL=${url}`,
          `  opencode   provider options.baseURL ${url}/v1`,
          `  config     "providers": { "mock": { "kind": "openai-compatible", "baseUrl": "${url}/v1" } }`,
          `  refused    ${running.refusedUrl} (nothing listens there)`,
          `  requests   curl ${url}/_mock/requests`
        ].join("\n")
    )
    yield* Effect.promise(() => running.stopped)
    if (!args.json) yield* Console.log(`fallback mock: stopped at the end of its lifetime (${formatTime(runs)})`)
  }).pipe(Effect.scoped)).pipe(Command.withDescription(description))
