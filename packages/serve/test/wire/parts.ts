/** Response parts as the engine gives them and the text/event-stream bodies of frames, for every wire's tests. */
import { Response } from "effect/ai"
import * as Result from "effect/Result"

import type { Call, Dialect, Frame } from "../../src/internal/wire/dialect.js"

/** A dialect's reader as the tests use it: `call` reads a body it takes, `refused` gives why it refuses one. */
export const reading = (dialect: Pick<Dialect, "read">) => ({
  call: (body: unknown): Call => Result.getOrThrow(dialect.read(body)),
  refused: (body: unknown) => {
    const read = dialect.read(body)
    if (Result.isSuccess(read)) throw new Error("read a body it should have refused")
    return read.failure
  }
})

export const metadata = () =>
  Response.makePart("response-metadata", { id: "up_1", modelId: "claude", timestamp: undefined })
export const text = (text: string) => Response.makePart("text", { text })
export const reasoning = (text: string, metadata: Record<string, any> = {}) =>
  Response.makePart("reasoning", { text, metadata })
export const textStart = (id: string) => Response.makePart("text-start", { id })
export const textDelta = (id: string, delta: string) => Response.makePart("text-delta", { id, delta })
export const textEnd = (id: string) => Response.makePart("text-end", { id })
export const reasoningStart = (id: string, metadata: Record<string, any> = {}) =>
  Response.makePart("reasoning-start", { id, metadata })
export const reasoningDelta = (id: string, delta: string) => Response.makePart("reasoning-delta", { id, delta })
export const reasoningEnd = (id: string, metadata: Record<string, any> = {}) =>
  Response.makePart("reasoning-end", { id, metadata })
export const paramsStart = (id: string, name: string) =>
  Response.makePart("tool-params-start", { id, name, providerExecuted: false })
export const paramsDelta = (id: string, delta: string) => Response.makePart("tool-params-delta", { id, delta })
export const paramsEnd = (id: string) => Response.makePart("tool-params-end", { id })
export const toolCall = (id: string, name: string, params: unknown) =>
  Response.makePart("tool-call", { id, name, params, providerExecuted: false }) as Response.ToolCallPart<
    string,
    unknown
  >

/** A text, a thought or a call's params (of the tool `name`) streamed in `pieces`: its start, a delta a piece, its end. */
export const streamedIn = (
  kind: "text" | "reasoning" | "call",
  id: string,
  pieces: ReadonlyArray<string>,
  name = "f"
) =>
  kind === "call"
    ? [paramsStart(id, name), ...pieces.map((piece) => paramsDelta(id, piece)), paramsEnd(id)]
    : kind === "text"
    ? [textStart(id), ...pieces.map((piece) => textDelta(id, piece)), textEnd(id)]
    : [reasoningStart(id), ...pieces.map((piece) => reasoningDelta(id, piece)), reasoningEnd(id)]

/** A thought streamed as one piece, with no metadata (no family, no signature). */
export const thought = (id: string, text: string) => streamedIn("reasoning", id, [text])

/**
 * A text streamed in `text`'s pieces, then a tool call's params streamed in `call`'s JSON pieces,
 * then the call with those params, as the upstream wires release them.
 */
export const textThenCall = (
  text: { readonly id: string; readonly pieces: ReadonlyArray<string> },
  call: { readonly id: string; readonly name: string; readonly pieces: ReadonlyArray<string> }
) => [
  ...streamedIn("text", text.id, text.pieces),
  ...streamedIn("call", call.id, call.pieces, call.name),
  toolCall(call.id, call.name, JSON.parse(call.pieces.join("")))
]

/** The bytes of a text/event-stream body of frames. */
export const sse = (frames: ReadonlyArray<Frame>) =>
  frames.map((frame) => `${frame.event === undefined ? "" : `event: ${frame.event}\n`}data: ${frame.data}\n\n`).join("")

/** The events of a text/event-stream body, pings left out. */
export const events = (body: string): Array<{ event: string; data: any }> =>
  body.split("\n\n").filter((chunk) => chunk.trim() !== "").map((chunk) => {
    const lines = chunk.split("\n")
    const event = lines.find((line) => line.startsWith("event: "))?.slice(7) ?? ""
    const data = lines.filter((line) => line.startsWith("data: ")).map((line) => line.slice(6)).join("\n")
    return { event, data: JSON.parse(data) }
  }).filter((e) => e.event !== "ping")
