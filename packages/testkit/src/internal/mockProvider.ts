/**
 * The mock provider's server: one loopback listener that routes each request to a vendor's
 * dialect, picks the fault it plays, plays it, and counts it.
 */
import * as Http from "node:http"
import * as Net from "node:net"

import { anthropic } from "./mockAnthropic.js"
import { gemini } from "./mockGemini.js"
import { chat, responses } from "./mockOpenAi.js"
import { dressed, flood, half, overloadedPage, send, trickle } from "./mockReply.js"
import { callOf, keyOf, named, parse, readBody, route, textLength } from "./mockRequest.js"
import type { Asked, Dialect, Fault, Reply, Route, Rule } from "./mockWire.js"
import { faults, isErrorFault, json, sse } from "./mockWire.js"

export type { Rule } from "./mockWire.js"

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
}

/** @internal */
export interface Request {
  readonly route: Route
  readonly model: string
  readonly key: string
  readonly fault: Fault
  readonly at: number
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
type Seen = Omit<Asked, "retryAfter" | "quotaReset" | "text" | "thinking" | "pause" | "id" | "headers" | "size">

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

  const pickFault = (asked: Seen, rule: Rule | undefined): Fault => {
    if (rule !== undefined) return rule.fault
    const window = options.contextWindows?.[asked.model]
    return named(asked.model) ?? named(asked.key) ??
      (window !== undefined && asked.inputTokens > window ? "context-too-long" : "answer")
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
    const base = {
      route: which,
      model,
      key: keyOf(request, url),
      stream: which === "gemini" ? url.pathname.includes(":stream") : body.stream === true,
      inputTokens: Math.ceil(textLength(body) / 4)
    }
    const rule = choose(base)
    const fault = pickFault(base, rule)
    sequence += 1
    const entry: { -readonly [K in keyof Request]: Request[K] } = {
      route: which,
      model,
      key: base.key,
      fault,
      at: Date.now(),
      ...(options.bodies === true ? { body, headers: { ...request.headers } } : {})
    }
    log.push(entry)
    const answerText = rule?.json !== undefined
      ? JSON.stringify(rule.json)
      : rule?.text ?? options.text ?? `mock answer from ${model === "" ? "the mock provider" : model}`
    const asked: Asked = {
      ...base,
      id: `mock${sequence}`,
      retryAfter: rule?.retryAfter ?? options.retryAfter ?? 30,
      quotaReset: rule?.quotaReset ?? options.quotaReset ?? 3600,
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
    return play(fault, asked, dialect, request, response, (sent) => (entry.sent = sent))
  }

  const play = async (
    fault: Fault,
    asked: Asked,
    dialect: Dialect,
    request: Http.IncomingMessage,
    response: Http.ServerResponse,
    took: (bytes: number) => void
  ): Promise<void> => {
    // Each reply with the rule's own headers over the dialect's.
    const write = (response: Http.ServerResponse, reply: Reply, end?: boolean) =>
      send(response, dressed(reply, asked), end)
    if (isErrorFault(fault)) return write(response, dialect.error(fault, asked))
    switch (fault) {
      case "answer":
        return write(response, dialect.answer(asked))
      case "think": {
        const reply = dressed((dialect.think ?? dialect.answer)(asked), asked)
        return asked.stream && asked.pause !== undefined
          ? trickle(response, reply, asked.pause, took)
          : send(response, reply)
      }
      case "reset":
        request.socket.resetAndDestroy()
        return
      case "refused":
        request.socket.resetAndDestroy()
        return running.refuse(options.downFor ?? 2000)
      case "hang":
        hold(response)
        return
      case "stall":
        hold(response)
        return write(response, asked.stream ? dialect.opening(asked) : half(dialect.answer(asked)), false)
      case "cut":
        await write(response, asked.stream ? dialect.opening(asked) : half(dialect.answer(asked)), false)
        request.socket.destroy()
        return
      case "stream-error":
        return write(response, asked.stream ? dialect.streamError(asked) : dialect.error("server-error", asked))
      case "error-as-200":
        return write(response, { ...dialect.error("overloaded", asked), status: 200 })
      case "html-as-200":
        return write(response, { status: 200, headers: { "content-type": "text/html" }, body: [overloadedPage] })
      case "malformed-sse": {
        const error = dialect.error("overloaded", asked).body.join("")
        return write(response, sse([`data: ${error.slice(0, Math.ceil(error.length / 2))}\n\n`]))
      }
      case "invalid-json": {
        const error = dialect.error("overloaded", asked)
        const text = error.body.join("")
        return write(response, { ...error, status: 200, body: [text.slice(0, Math.ceil(text.length / 2))] })
      }
      case "huge-error": {
        const head = dialect.error("server-error", asked)
        const text = head.body.join("")
        const headers = { ...head.headers, "content-length": String(asked.size) }
        return flood(response, dressed({ ...head, headers }, asked), text, asked.size, took)
      }
      case "endless-line":
        return flood(response, dressed(sse([]), asked), "data: ", asked.size, took)
    }
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
