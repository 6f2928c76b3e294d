/**
 * What every vendor's dialect of the mock provider shares: the faults, what a request carried,
 * and a reply as status, headers and the pieces of its body.
 */

/** @internal */
export const malformed = [
  "malformed-event",
  "no-sentinel",
  "error-as-200",
  "html-as-200",
  "malformed-sse",
  "invalid-json",
  "huge-error",
  "endless-line"
] as const

/** @internal */
export const faults = [
  "answer",
  "think",
  "rate-limit",
  "rate-limit-bare",
  "quota",
  "overloaded",
  "server-error",
  "bad-gateway",
  "unauthorized",
  "forbidden",
  "model-not-found",
  "context-too-long",
  "content-filter",
  "content-policy",
  "no-prefill",
  "flap",
  "reset",
  "refused",
  "hang",
  "slow",
  "slow-token",
  "stall",
  "cut",
  "cut-mid-json",
  "stream-error",
  ...malformed
] as const

/** @internal */
export type Fault = typeof faults[number]

/** @internal */
export type Malformed = typeof malformed[number]

/** The faults that are not always an HTTP error in the vendor's own shape. */
const played = [
  "answer",
  "think",
  "content-filter",
  "no-prefill",
  "flap",
  "reset",
  "refused",
  "hang",
  "slow",
  "slow-token",
  "stall",
  "cut",
  "cut-mid-json",
  "stream-error",
  ...malformed
] as const

/** The faults answered with an HTTP error in the vendor's own shape. */
export type ErrorFault = Exclude<Fault, typeof played[number]>

/** An HTTP error a dialect speaks: a fault's, or the 400 a refused assistant prefill gets (`no-prefill`). */
export type ErrorKind = ErrorFault | "prefill"

const unanswered: ReadonlySet<Fault> = new Set<Fault>(played)

/** @internal */
export const isErrorFault = (fault: Fault): fault is ErrorFault => !unanswered.has(fault)

/** @internal */
export const routes = ["anthropic", "responses", "chat", "gemini", "models", "other"] as const

/** @internal */
export type Route = typeof routes[number]

/** @internal */
export interface Rule {
  readonly fault: Fault
  readonly route?: Route | undefined
  readonly model?: string | undefined
  readonly key?: string | undefined
  readonly times?: number | undefined
  readonly retryAfter?: number | undefined
  readonly quotaReset?: number | undefined
  readonly text?: string | undefined
  /** Headers set on the reply over the dialect's own (a rate limit's `retry-after`, say); `null` leaves one out. */
  readonly headers?: Readonly<Record<string, string | null>> | undefined
  /** Bytes of body `huge-error` and `endless-line` send (200 MiB unless said). */
  readonly size?: number | undefined
  /** Answer with a call to this tool (named, or the first the request offers) instead of text. */
  readonly tool?: { readonly name?: string | undefined; readonly input: unknown } | undefined
  /**
   * Answer with this value as JSON: as a call to the tool a request forces (how Anthropic is asked
   * for an object), else as the text.
   */
  readonly json?: unknown
  /** What a `think` answer thinks before its text (a sentence about the text unless said). */
  readonly thinking?: string | undefined
  /** Milliseconds between the pieces of a streamed `think` answer (none unless said): a model seen thinking for a while. */
  readonly pause?: number | undefined
  /** Milliseconds, on the mock's clock, `slow` waits before its reply and `slow-token` before its first content. */
  readonly delay?: number | undefined
  /** Milliseconds from the mock's start, on its clock, during which `flap` fails (503; Anthropic 529). */
  readonly window?: number | undefined
}

/** What one request carried, as far as a reply needs it. */
export interface Asked {
  readonly route: Route
  readonly model: string
  readonly key: string
  readonly stream: boolean
  readonly inputTokens: number
  readonly id: string
  /** Seconds for `retry-after` and the vendor's rate-limit reset headers. */
  readonly retryAfter: number
  /** Seconds until a spent quota comes back, sent as the vendor's reset headers. */
  readonly quotaReset: number
  readonly text: string
  /** What a `think` answer thinks before its text. */
  readonly thinking: string
  /** Milliseconds between the pieces of a streamed `think` answer. */
  readonly pause?: number | undefined
  /** Headers set on the reply over the dialect's own; `null` leaves one out. */
  readonly headers?: Readonly<Record<string, string | null>> | undefined
  /** Bytes of body `huge-error` and `endless-line` send. */
  readonly size: number
  /** A tool call to answer with instead of text (a JSON answer asked as a forced tool is one too). */
  readonly call?: Call | undefined
  /** Milliseconds, on the mock's clock, `slow` waits before its reply and `slow-token` before its first content. */
  readonly delay?: number | undefined
  /** The assistant prefill the request ends with, if it does: the answer so far, to continue from. */
  readonly prefill?: string | undefined
}

/** A tool call an answer makes: the tool's name and its input. */
export interface Call {
  readonly name: string
  readonly input: unknown
}

/** A reply: status, headers, and the body's pieces, written in order. */
export interface Reply {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: ReadonlyArray<string>
}

/** How a vendor speaks: its answers, its errors, and the pieces of a stream cut short. */
export interface Dialect {
  readonly answer: (asked: Asked) => Reply
  /** An answer that thinks first (a thinking block before the text); a dialect without one answers plainly. */
  readonly think?: ((asked: Asked) => Reply) | undefined
  readonly error: (fault: ErrorKind, asked: Asked) => Reply
  /** A content-filter refusal inside a 200 (OpenAI `finish_reason: "content_filter"`, Anthropic `stop_reason: "refusal"`). */
  readonly refusal: (asked: Asked) => Reply
  /** What a streamed answer ends with that a stream without its sentinel leaves out (none: nothing is). */
  readonly sentinel?: string | undefined
  /** A stream's opening pieces, the last its first content: sent before a cut or a stall. */
  readonly opening: (asked: Asked) => Reply
  /** A stream that opens, then reports an error inside it (status 200). */
  readonly streamError: (asked: Asked) => Reply
}

/** A JSON body. */
export const json = (status: number, value: unknown, headers: Readonly<Record<string, string>> = {}): Reply => ({
  status,
  headers: { "content-type": "application/json", ...headers },
  body: [JSON.stringify(value)]
})

/** An SSE stream of the given pieces. */
export const sse = (pieces: ReadonlyArray<string>): Reply => ({
  status: 200,
  headers: { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" },
  body: pieces
})

/** One SSE event, named or not. */
export const event = (data: unknown, name?: string): string =>
  `${name === undefined ? "" : `event: ${name}\n`}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`

/** A gateway's HTML page, the same whoever stands behind it. */
export const badGateway: Reply = {
  status: 502,
  headers: { "content-type": "text/html" },
  body: [
    "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n" +
    "<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"
  ]
}

/** The text of an answer in three deltas. */
export const deltas = (text: string): ReadonlyArray<string> => {
  const third = Math.max(1, Math.ceil(text.length / 3))
  return [text.slice(0, third), text.slice(third, 2 * third), text.slice(2 * third)].filter((piece) => piece !== "")
}

/** Output tokens of a text, at four characters a token. */
export const outputTokens = (text: string): number => Math.max(1, Math.ceil(text.length / 4))

/** A time `seconds` from now, as RFC 3339. */
export const inSeconds = (seconds: number): string => new Date(Date.now() + seconds * 1000).toISOString()

/** A key shown the way vendors echo it: the first three and last four characters. */
export const maskKey = (key: string): string =>
  key.length <= 8 ? "****" : `${key.slice(0, 3)}${"*".repeat(Math.max(4, key.length - 7))}${key.slice(-4)}`
