import * as Backend from "@fallback/core/Backend"
import * as Classify from "@fallback/core/Classify"
import type * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import type { SseEvent } from "./sse.js"

/**
 * What a turn's stream has told so far: the text, the tokens in and out the provider counted, the
 * model that answered (as the provider named it), whether it said the answer is finished, and the
 * events it sent that were not JSON (`skipped`, their words kept in `strays`).
 *
 * @internal
 */
export interface Reading {
  text: string
  input: number
  output: number
  model: string | undefined
  finished: boolean
  skipped: number
  strays: string
}

/**
 * What one event of a stream means: thinking (the model's reasoning, or its summary) and text to
 * pass on, the end of the answer, or an error inside the stream (its data, to classify).
 *
 * @internal
 */
export interface Step {
  readonly thinking?: ReadonlyArray<string> | undefined
  readonly texts: ReadonlyArray<string>
  readonly done: boolean
  readonly error?: string | undefined
  /** The event's data was no JSON: skipped, and counted. */
  readonly malformed?: boolean | undefined
}

/**
 * A wire format: where a turn is sent, its headers and body, and how its stream reads.
 *
 * @internal
 */
export interface Wire {
  readonly turnPath: string
  readonly modelsPath: string
  readonly headers: (key: Option.Option<Redacted.Redacted>) => Record<string, string>
  readonly body: (model: string, prompt: Backend.Prompt, maxTokens: number) => unknown
  readonly read: (reading: Reading, event: SseEvent) => Step
}

/**
 * What a stream's events came to so far: more to read, the end of the answer, or an error inside
 * the stream (its data, to classify).
 *
 * @internal
 */
export type Progress = "more" | "done" | { readonly error: string }

/**
 * Reads events into `reading` in order, adding the thinking and text they carry to `out` as
 * events, up to the end of the answer or an error inside the stream; events after either are not
 * read.
 *
 * @internal
 */
export const readEvents = (
  wire: Wire,
  reading: Reading,
  events: ReadonlyArray<SseEvent>,
  out: Array<Backend.Event>
): Progress => {
  for (const event of events) {
    const step = wire.read(reading, event)
    if (step.malformed === true) stray(reading, event.data)
    if (step.thinking !== undefined) { for (const text of step.thinking) out.push(Backend.Event.Thinking({ text })) }
    for (const text of step.texts) out.push(Backend.Event.Text({ text }))
    if (step.error !== undefined) return { error: step.error }
    if (step.done) return "done"
  }
  return "more"
}

/** @internal */
export const parseData = (data: string): Record<string, any> | undefined => {
  try {
    const value: unknown = JSON.parse(data)
    return typeof value === "object" && value !== null ? value as Record<string, any> : undefined
  } catch {
    return undefined
  }
}

/** @internal */
export const nothing: Step = { texts: [], done: false }

/** @internal */
export const malformed: Step = { texts: [], done: false, malformed: true }

/** Counts an event that was no JSON, keeping the head of its words for an answer that never finishes. */
const stray = (reading: Reading, data: string): void => {
  reading.skipped++
  const room = Classify.longestRefusal - reading.strays.length
  if (room > 0) reading.strays += `${reading.strays === "" ? "" : "\n"}${data.slice(0, room)}`
}

/**
 * The conversation as alternating user and assistant messages, the prompt last; then, where the
 * prompt continues an answer, that answer so far as the final assistant message (`prefill`, as the
 * wire wants it sent).
 *
 * @internal
 */
export const messages = (
  prompt: Backend.Prompt,
  prefill: (text: string) => string = (text) => text
): ReadonlyArray<{ readonly role: string; readonly content: string }> => {
  const all = [
    ...prompt.history.flatMap((exchange) => [
      { role: "user", content: exchange.prompt },
      { role: "assistant", content: exchange.answer }
    ]),
    { role: "user", content: prompt.text }
  ]
  const delivered = prompt.prefill === undefined ? "" : prefill(prompt.prefill)
  return delivered === "" ? all : [...all, { role: "assistant", content: delivered }]
}
