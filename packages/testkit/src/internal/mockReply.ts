/**
 * How the mock provider writes a reply: whole, trickled piece by piece, or flooded with filler,
 * with a rule's own headers over the dialect's.
 */
import type * as Http from "node:http"

import type { Asked, Reply } from "./mockWire.js"

/**
 * Writes a reply's pieces in order, with its headers, in one write to the socket; `end` false
 * leaves the body open (a stall, a cut to come). An event stream is sent chunked, as providers
 * send it; anything else with its length.
 */
/** @internal */
export const send = (response: Http.ServerResponse, reply: Reply, end = true): Promise<void> =>
  new Promise((resolve) => {
    const body = reply.body.join("")
    const streamed = reply.headers["content-type"] === "text/event-stream"
    response.writeHead(reply.status, streamed ? { ...reply.headers, "transfer-encoding": "chunked" } : reply.headers)
    if (end) return response.end(body, () => resolve())
    if (body !== "") return response.write(body, () => resolve())
    response.flushHeaders()
    resolve()
  })

/**
 * Writes a streamed reply's pieces `pause` milliseconds apart, telling `took` the bytes written so
 * far after each, and stops if the client goes away.
 */
/** @internal */
export const trickle = async (
  response: Http.ServerResponse,
  reply: Reply,
  pause: number,
  took: (bytes: number) => void
): Promise<void> => {
  response.writeHead(reply.status, { ...reply.headers, "transfer-encoding": "chunked" })
  let sent = 0
  for (const [i, piece] of reply.body.entries()) {
    if (i > 0) await new Promise((resolve) => setTimeout(resolve, pause))
    if (response.destroyed) return
    await new Promise<void>((resolve) => response.write(piece, () => resolve()))
    sent += Buffer.byteLength(piece)
    took(sent)
  }
  response.end()
}

/** A reply's headers with a rule's own over them. */
/** @internal */
export const dressed = (reply: Reply, asked: Asked): Reply => {
  if (asked.headers === undefined) return reply
  const headers: Record<string, string> = { ...reply.headers }
  for (const [name, value] of Object.entries(asked.headers)) {
    if (value === null) delete headers[name]
    else headers[name] = value
  }
  return { ...reply, headers }
}

/** A page a proxy in front of a busy server answers with, status 200. */
/** @internal */
export const overloadedPage = "<!DOCTYPE html>\n<html><head><title>Service unavailable</title></head>\n" +
  "<body><h1>Service unavailable</h1><p>The server is overloaded. Please try again later.</p></body></html>\n"

/**
 * Writes `head` then filler (`x`) up to `size` bytes of body, waiting for the client to take each
 * piece, and tells `took` how many bytes the client took before it went away or the body ended.
 */
/** @internal */
export const flood = (
  response: Http.ServerResponse,
  reply: Reply,
  head: string,
  size: number,
  took: (bytes: number) => void
): Promise<void> =>
  new Promise((resolve) => {
    const streamed = reply.headers["content-type"] === "text/event-stream"
    response.writeHead(reply.status, streamed ? { ...reply.headers, "transfer-encoding": "chunked" } : reply.headers)
    const piece = Buffer.alloc(64 * 1024, "x")
    let sent = 0
    let closed = false
    const done = () => {
      took(Math.min(sent, size))
      resolve()
    }
    response.on("close", () => {
      closed = true
      done()
    })
    const more = () => {
      while (!closed && sent < size) {
        const first = sent === 0 ? Buffer.from(head) : piece
        const chunk = first.subarray(0, Math.min(first.length, size - sent))
        sent += chunk.length
        if (!response.write(chunk)) return void response.once("drain", more)
      }
      if (!closed) response.end()
    }
    more()
  })

/** @internal */
export const half = (reply: Reply): Reply => {
  const whole = reply.body.join("")
  return { ...reply, body: [whole.slice(0, Math.floor(whole.length / 2))] }
}
