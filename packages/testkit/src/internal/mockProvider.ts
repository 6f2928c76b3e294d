/**
 * The mock provider's server: one loopback listener that routes each request to a vendor's
 * dialect, picks the fault it plays, plays it, and counts it.
 */
import * as Http from "node:http"
import * as Net from "node:net"

import { anthropic } from "./mockAnthropic.js"
import { gemini } from "./mockGemini.js"
import { chat, responses } from "./mockOpenAi.js"
import { type Ended, play } from "./mockPlay.js"
import { send } from "./mockReply.js"
import { callOf, keyOf, type Named, named, parse, prefillOf, readBody, route, textLength } from "./mockRequest.js"
import type { Asked, Dialect, Fault, Route, Rule } from "./mockWire.js"
import { faults, json } from "./mockWire.js"

export type { Ended } from "./mockPlay.js"
export type { Rule } from "./mockWire.js"

/** @internal */
export interface Clock {
  /** Milliseconds, on any origin: the mock counts from its reading at its start. */
  readonly now: () => number
  readonly sleep: (millis: number) => Promise<void>
}

/** Node's own clock: `performance.now()` and timers. */
const nodeClock: Clock = {
  now: () => performance.now(),
  sleep: (millis) => new Promise((resolve) => setTimeout(resolve, millis))
}

/** @internal */
export interface Options {
  /** The port on 127.0.0.1 (0, the default, for any free one). */
  readonly port?: number | undefined
  readonly lifetime?: number | undefined
  readonly retryAfter?: number | undefined
  readonly quotaReset?: number | undefined
  readonly downFor?: number | undefined
  readonly text?: string | undefined
  readonly contextWindows?: Readonly<Record<string, number>> | undefined
  /** Keep each request's parsed body and headers in the log (off unless asked: a long run would hold them all). */
  readonly bodies?: boolean | undefined
  /** The mock's clock: what `at`, `slow`'s delay and `flap`'s window are measured on (Node's unless given). */
  readonly clock?: Clock | undefined
}

/** @internal */
export interface Request {
  readonly route: Route
  readonly model: string
  readonly key: string
  /** The fault played (a `-once` used up or a `flap` past its window: `answer`). */
  readonly fault: Fault
  /** Milliseconds since the mock's start (or reset) on its clock. */
  readonly at: number
  /** Milliseconds since the mock's start on Node's monotonic clock (`performance.now()`), whatever its clock. */
  readonly monotonic: number
  /** The assistant prefill the request ended with (the answer so far), when it did. */
  readonly prefill?: string
  /** How its reply ended, so far. */
  readonly ended: Ended
  /** The request's parsed body, when the mock was started with `bodies`. */
  readonly body?: unknown
  /** The request's headers, when the mock was started with `bodies`. */
  readonly headers?: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>
  /**
   * For `huge-error` and `endless-line`: the bytes of body the client took before it went away
   * (written to its socket; the kernel's buffers between hold at most a few MiB of them). For a
   * `think` streamed with a `pause`: the bytes written so far, as they are written.
   */
  readonly sent?: number
}

/** @internal */
export interface Counts {
  readonly total: number
  readonly byRoute: Readonly<Record<string, number>>
  readonly byModel: Readonly<Record<string, number>>
  readonly byKey: Readonly<Record<string, number>>
  readonly byFault: Readonly<Record<string, number>>
  readonly log: ReadonlyArray<Request>
}

/** @internal */
export interface Running {
  readonly url: string
  readonly port: number
  readonly refusedUrl: string
  readonly script: (rules: ReadonlyArray<Rule>) => void
  readonly requests: () => Counts
  readonly reset: () => void
  readonly refuse: (millis: number) => Promise<void>
  readonly stop: () => Promise<void>
  /** Settles once the mock has stopped: by `stop`, or at the end of its lifetime. */
  readonly stopped: Promise<void>
}

const host = "127.0.0.1"

/** What a request is known by before its fault is picked. */
type Seen = Omit<
  Asked,
  "retryAfter" | "quotaReset" | "text" | "thinking" | "pause" | "id" | "headers" | "size" | "delay" | "window"
>

const dialects: { readonly [R in Route]: Dialect } = {
  anthropic,
  responses,
  chat,
  gemini,
  models: chat,
  other: chat
}

const count = (book: Record<string, number>, name: string) => {
  book[name] = (book[name] ?? 0) + 1
}

/** Binds a port on 127.0.0.1 and lets it go: a URL nothing listens at. */
const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const probe = Net.createServer()
    probe.once("error", reject)
    probe.listen(0, host, () => {
      const port = (probe.address() as Net.AddressInfo).port
      probe.close(() => resolve(port))
    })
  })

/**
 * Starts the mock provider on 127.0.0.1 (port 0 unless said); it stops by itself after
 * `lifetime` milliseconds (ten minutes unless said).
 *
 * @internal
 */
export const start = async (options: Options = {}, port = options.port ?? 0): Promise<Running> => {
  let rules: Array<Rule & { left: number }> = []
  let log: Array<Request> = []
  let sequence = 0
  const clock = options.clock ?? nodeClock
  let origin = clock.now()
  const started = performance.now()
  /** Requests seen per name that asks for a fault a number of times (`-once`, `-x<n>`). */
  let named_: Map<string, number> = new Map()
  const sockets = new Set<Net.Socket>()
  const pending = new Set<Http.ServerResponse>()

  const choose = (asked: Seen): Rule | undefined => {
    const index = rules.findIndex((rule) =>
      (rule.route === undefined || rule.route === asked.route) &&
      (rule.model === undefined || rule.model === asked.model) &&
      (rule.key === undefined || rule.key === asked.key)
    )
    const rule = rules[index]
    if (rule === undefined) return undefined
    rule.left -= 1
    if (rule.left <= 0) rules.splice(index, 1)
    return rule
  }

  /** What a name asks for, its `times` counted: `answer` once they are used up. */
  const asks = (text: string): Named | undefined => {
    const asked = named(text)
    if (asked?.times === undefined) return asked
    const seen = (named_.get(text) ?? 0) + 1
    named_.set(text, seen)
    return seen > asked.times ? { fault: "answer" } : asked
  }

  /** The fault to play, and the number its name gave it. */
  const pickFault = (asked: Seen, rule: Rule | undefined, at: number): Named => {
    const picked: Named = rule !== undefined ? { fault: rule.fault } : asks(asked.model) ?? asks(asked.key) ?? {
      fault: (options.contextWindows?.[asked.model] ?? Infinity) < asked.inputTokens ? "context-too-long" : "answer"
    }
    if (picked.fault !== "flap") return picked
    const window = rule?.window ?? picked.n ?? 60_000
    return at < window ? { fault: "overloaded" } : { fault: "answer" }
  }

  const hold = (response: Http.ServerResponse) => {
    pending.add(response)
    response.on("close", () => pending.delete(response))
  }

  const http = Http.createServer((request, response) => {
    void serve(request, response)
  })

  const control = async (request: Http.IncomingMessage, response: Http.ServerResponse, path: string) => {
    const body = parse(await readBody(request))
    if (path === "/_mock/script" && request.method === "POST") {
      const rules: ReadonlyArray<Partial<Rule>> = Array.isArray(body.rules) ? body.rules : []
      const wrong = rules.find((rule) => !faults.includes(rule.fault as Fault))
      if (wrong !== undefined) {
        const error = `no fault ${JSON.stringify(wrong.fault)}; one of ${faults.join(", ")}`
        return send(response, json(400, { error }))
      }
      running.script(rules as ReadonlyArray<Rule>)
      return send(response, json(200, { ok: true }))
    }
    if (path === "/_mock/reset" && request.method === "POST") {
      running.reset()
      return send(response, json(200, { ok: true }))
    }
    if (path === "/_mock/requests") return send(response, json(200, running.requests()))
    return send(response, json(404, { error: `no control ${request.method} ${path}` }))
  }

  const serve = async (request: Http.IncomingMessage, response: Http.ServerResponse) => {
    const url = new URL(request.url ?? "/", `http://${host}`)
    if (url.pathname.startsWith("/_mock/")) return control(request, response, url.pathname)
    const text = await readBody(request)
    const body = parse(text)
    const which = route(request.method ?? "GET", url.pathname)
    const model = which === "gemini"
      ? decodeURIComponent(url.pathname.replace(/^.*\/models\/([^/:]+):.*$/, "$1"))
      : typeof body.model === "string"
      ? body.model
      : ""
    const prefill = prefillOf(body)
    const base = {
      route: which,
      model,
      key: keyOf(request, url),
      stream: which === "gemini" ? url.pathname.includes(":stream") : body.stream === true,
      inputTokens: Math.ceil(textLength(body) / 4),
      prefill
    }
    const at = clock.now() - origin
    const rule = choose(base)
    const { fault, n } = pickFault(base, rule, at)
    sequence += 1
    const entry: { -readonly [K in keyof Request]: Request[K] } = {
      route: which,
      model,
      key: base.key,
      fault,
      at,
      monotonic: performance.now() - started,
      ...(prefill === undefined ? {} : { prefill }),
      ended: "pending",
      ...(options.bodies === true ? { body, headers: { ...request.headers } } : {})
    }
    log.push(entry)
    response.on("close", () => {
      if (entry.ended === "pending" && !response.writableFinished) entry.ended = "abandoned"
    })
    const whole = rule?.json !== undefined
      ? JSON.stringify(rule.json)
      : rule?.text ?? options.text ?? `mock answer from ${model === "" ? "the mock provider" : model}`
    // A prefill the answer begins with is continued: only the rest is answered.
    const answerText = prefill !== undefined && prefill !== "" && whole.startsWith(prefill)
      ? whole.slice(prefill.length)
      : whole
    const asked: Asked = {
      ...base,
      id: `mock${sequence}`,
      retryAfter: rule?.retryAfter ?? (fault === "rate-limit" ? n : undefined) ?? options.retryAfter ?? 30,
      quotaReset: rule?.quotaReset ?? (fault === "quota" ? n : undefined) ?? options.quotaReset ?? 3600,
      delay: rule?.delay ?? (fault === "slow" || fault === "slow-token" ? n : undefined),
      text: answerText,
      thinking: rule?.thinking ?? `The user wants an answer. Weighing it first, then answering: ${answerText}`,
      pause: rule?.pause,
      call: callOf(rule, body),
      headers: rule?.headers,
      size: rule?.size ?? 200 * 1024 * 1024
    }
    if (which === "other") {
      return send(response, json(404, { error: { message: `no route ${request.method} ${url.pathname}` } }))
    }
    if (which === "models" && fault === "answer") {
      const models = [{ id: "mock-model", object: "model", owned_by: "mock" }]
      return send(response, json(200, { object: "list", data: models }))
    }
    const asAnthropic = which === "models" && request.headers["anthropic-version"] !== undefined
    const dialect = asAnthropic ? anthropic : dialects[which]
    return play(fault, {
      request,
      response,
      dialect,
      asked,
      sleep: clock.sleep,
      hold,
      refuse: () => running.refuse(options.downFor ?? 2000),
      took: (sent) => (entry.sent = sent),
      ended: (how) => {
        if (entry.ended !== "abandoned") entry.ended = how
      }
    })
  }

  const listen = (at: number): Promise<Net.Server> =>
    new Promise((resolve, reject) => {
      const front = Net.createServer({ noDelay: true }, (socket) => {
        sockets.add(socket)
        socket.on("close", () => sockets.delete(socket))
        http.emit("connection", socket)
      })
      front.once("error", reject)
      front.listen(at, host, () => resolve(front))
    })

  let front = await listen(port)
  const bound = (front.address() as Net.AddressInfo).port
  const refusedPort = await freePort()
  let stopped = false
  let settle = () => {}
  const ended = new Promise<void>((resolve) => (settle = resolve))

  const close = (server: Net.Server): Promise<void> => new Promise((resolve) => server.close(() => resolve()))

  const running: Running = {
    url: `http://${host}:${bound}`,
    port: bound,
    refusedUrl: `http://${host}:${refusedPort}`,
    script: (next) => {
      rules = next.map((rule) => ({ ...rule, left: rule.times ?? Infinity }))
    },
    requests: () => {
      const byRoute: Record<string, number> = {}
      const byModel: Record<string, number> = {}
      const byKey: Record<string, number> = {}
      const byFault: Record<string, number> = {}
      for (const entry of log) {
        count(byRoute, entry.route)
        count(byModel, entry.model)
        count(byKey, entry.key)
        count(byFault, entry.fault)
      }
      return { total: log.length, byRoute, byModel, byKey, byFault, log: [...log] }
    },
    reset: () => {
      rules = []
      log = []
      named_ = new Map()
      origin = clock.now()
    },
    refuse: async (millis) => {
      front.close()
      await new Promise((resolve) => setTimeout(resolve, millis))
      if (!stopped) front = await listen(bound)
    },
    stop: async () => {
      if (stopped) return
      stopped = true
      clearTimeout(timer)
      for (const response of pending) response.destroy()
      for (const socket of sockets) socket.destroy()
      await Promise.all([close(front), close(http)])
      settle()
    },
    stopped: ended
  }
  const timer = setTimeout(() => void running.stop(), options.lifetime ?? 600_000)
  timer.unref()
  return running
}
