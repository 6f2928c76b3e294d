/**
 * How the mock provider plays a fault on one request, once it is picked: the vendor's reply,
 * written whole, in pieces, late, cut, or never, and how the reply ended.
 */
import type * as Http from "node:http"

import { dressed, flood, half, overloadedPage, send, trickle } from "./mockReply.js"
import type { Asked, Dialect, Fault, Reply } from "./mockWire.js"
import { isErrorFault, sse } from "./mockWire.js"

/**
 * How a reply ended: `complete` (the answer, sent to its end), `error` (an HTTP error or an error
 * inside a 200), `refused` (a content refusal, or a refused prefill), `cut` (the socket closed
 * mid-reply), `reset` (reset before any byte), `stalled` (some of it sent, then silence with the
 * connection open), `silent` (nothing ever sent), `abandoned` (the client went away before the mock
 * was done), `pending` (not done yet).
 *
 * @internal
 */
export type Ended = "pending" | "complete" | "error" | "refused" | "cut" | "reset" | "stalled" | "silent" | "abandoned"

/** What playing a fault needs of the server. */
/** @internal */
export interface Stage {
  readonly request: Http.IncomingMessage
  readonly response: Http.ServerResponse
  readonly dialect: Dialect
  readonly asked: Asked
  /** Milliseconds on the mock's clock. */
  readonly sleep: (millis: number) => Promise<void>
  /** Keeps a response open until the mock stops. */
  readonly hold: (response: Http.ServerResponse) => void
  readonly refuse: () => Promise<void>
  readonly took: (bytes: number) => void
  readonly ended: (how: Ended) => void
}

const ends: Partial<Record<Fault, Ended>> = {
  answer: "complete",
  think: "complete",
  "malformed-event": "complete",
  "no-sentinel": "complete",
  "content-filter": "refused",
  "content-policy": "refused",
  reset: "reset",
  refused: "reset",
  hang: "silent",
  stall: "stalled",
  cut: "cut",
  "cut-mid-json": "cut"
}

/** One SSE event cut in the middle of its JSON, closed as an event: a malformed event. */
const broken = (piece: string): string => `${piece.slice(0, Math.ceil(piece.trimEnd().length / 2))}\n\n`

/** The pieces of a streamed answer before its first content (role, message start, keep-alives). */
const before = (stage: Stage): number => stage.dialect.opening(stage.asked).body.length - 1

/** Writes pieces one by one, stopping if the client went away; false when it did. */
const pieces = async (response: Http.ServerResponse, parts: ReadonlyArray<string>): Promise<boolean> => {
  for (const piece of parts) {
    if (response.destroyed) return false
    await new Promise<void>((resolve) => response.write(piece, () => resolve()))
  }
  return !response.destroyed
}

/** Opens a streamed reply: its status and headers, chunked, nothing of its body yet. */
const open = (response: Http.ServerResponse, reply: Reply) => {
  response.writeHead(reply.status, { ...reply.headers, "transfer-encoding": "chunked" })
  response.flushHeaders()
}

/** @internal */
export const play = async (fault: Fault, stage: Stage): Promise<void> => {
  const { asked, dialect, request, response } = stage
  const write = (reply: Reply, end?: boolean) => send(response, dressed(reply, asked), end)
  const ended = ends[fault] ?? "error"
  const mark = () => stage.ended(!response.writableFinished && ended === "complete" ? "abandoned" : ended)
  if (isErrorFault(fault)) {
    await write(dialect.error(fault, asked))
    return mark()
  }
  switch (fault) {
    case "answer":
    case "malformed-event":
    case "no-sentinel": {
      const reply = dialect.answer(asked)
      if (!asked.stream || asked.call !== undefined) await write(reply)
      else if (fault === "answer") await write(reply)
      else if (fault === "no-sentinel") {
        const sentinel = dialect.sentinel
        await write({
          ...reply,
          body: reply.body.filter((piece) => sentinel === undefined || !piece.startsWith(sentinel))
        })
      } else {
        const at = before(stage) + 1
        const next = reply.body[at] ?? reply.body[at - 1] ?? ""
        await write({ ...reply, body: [...reply.body.slice(0, at), broken(next), ...reply.body.slice(at)] })
      }
      return mark()
    }
    case "think": {
      const reply = dressed((dialect.think ?? dialect.answer)(asked), asked)
      if (asked.stream && asked.pause !== undefined) await trickle(response, reply, asked.pause, stage.took)
      else await send(response, reply)
      return mark()
    }
    case "slow":
    case "slow-token": {
      const reply = dressed(dialect.answer(asked), asked)
      const streamed = asked.stream && fault === "slow-token"
      const first = streamed ? before(stage) : 0
      if (streamed) {
        open(response, reply)
        if (!(await pieces(response, reply.body.slice(0, first)))) return stage.ended("abandoned")
      }
      await stage.sleep(asked.delay ?? 10_000)
      if (response.destroyed) return stage.ended("abandoned")
      if (!streamed) await send(response, reply)
      else if (await pieces(response, reply.body.slice(first))) {
        await new Promise<void>((resolve) => response.end(resolve))
      }
      return stage.ended(response.writableFinished ? "complete" : "abandoned")
    }
    case "content-filter":
      await write(dialect.refusal(asked))
      return mark()
    case "no-prefill":
      if (asked.prefill === undefined) {
        await write(dialect.answer(asked))
        return stage.ended("complete")
      }
      await write(dialect.error("prefill", asked))
      return stage.ended("refused")
    case "flap":
      // Picked as overloaded or answer by the server, by the mock's clock.
      await write(dialect.error("overloaded", asked))
      return mark()
    case "reset":
      request.socket.resetAndDestroy()
      return mark()
    case "refused":
      request.socket.resetAndDestroy()
      mark()
      return stage.refuse()
    case "hang":
      stage.hold(response)
      return mark()
    case "stall":
      stage.hold(response)
      await write(asked.stream ? dialect.opening(asked) : half(dialect.answer(asked)), false)
      return mark()
    case "cut":
    case "cut-mid-json": {
      const opening = dialect.opening(asked)
      const next = dialect.answer(asked).body[opening.body.length] ?? ""
      const body = !asked.stream
        ? half(dialect.answer(asked))
        : fault === "cut"
        ? opening
        : { ...opening, body: [...opening.body, next.slice(0, Math.ceil(next.length / 2))] }
      await write(body, false)
      request.socket.destroy()
      return mark()
    }
    case "stream-error":
      await write(asked.stream ? dialect.streamError(asked) : dialect.error("server-error", asked))
      return mark()
    case "error-as-200":
      await write({ ...dialect.error("overloaded", asked), status: 200 })
      return mark()
    case "html-as-200":
      await write({ status: 200, headers: { "content-type": "text/html" }, body: [overloadedPage] })
      return mark()
    case "malformed-sse": {
      const error = dialect.error("overloaded", asked).body.join("")
      await write(sse([`data: ${error.slice(0, Math.ceil(error.length / 2))}\n\n`]))
      return mark()
    }
    case "invalid-json": {
      const error = dialect.error("overloaded", asked)
      const text = error.body.join("")
      await write({ ...error, status: 200, body: [text.slice(0, Math.ceil(text.length / 2))] })
      return mark()
    }
    case "huge-error": {
      const head = dialect.error("server-error", asked)
      const text = head.body.join("")
      const headers = { ...head.headers, "content-length": String(asked.size) }
      await flood(response, dressed({ ...head, headers }, asked), text, asked.size, stage.took)
      return mark()
    }
    case "endless-line":
      await flood(response, dressed(sse([]), asked), "data: ", asked.size, stage.took)
      return mark()
  }
}
