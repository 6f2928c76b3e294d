/** Helpers for the crash-test faults: reading a stream that may end badly, and calls that end with a prefill. */
import { Effect } from "effect"

import { type Call, calls, send } from "./calls.js"

/** A stream read to its end or its failure: what arrived, and whether the body ended cleanly. */
export interface Read {
  readonly status: number
  readonly headers: Headers
  readonly text: string
  readonly clean: boolean
}

export const read = (url: string, call: Call, signal?: AbortSignal) =>
  Effect.promise(async (): Promise<Read> => {
    const response = await send(url, call, signal)
    const reader = response.body!.getReader()
    const decoder = new TextDecoder()
    let text = ""
    try {
      for (;;) {
        const { done, value } = await reader.read()
        if (done) return { status: response.status, headers: response.headers, text, clean: true }
        text += decoder.decode(value, { stream: true })
      }
    } catch {
      return { status: response.status, headers: response.headers, text, clean: false }
    }
  })

/** The `data:` lines of an SSE body, each parsed when it is JSON, else kept as its text. */
export const lines = (text: string): ReadonlyArray<unknown> =>
  text.split(/\r?\n/).filter((line) => line.startsWith("data: ")).map((line) => {
    try {
      return JSON.parse(line.slice(6))
    } catch {
      return line.slice(6)
    }
  })

/** Waits real milliseconds (the TestClock does not move them). */
export const real = (millis: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, millis)))

/** A call whose last message is the assistant's: the answer so far, to be continued. */
export const prefilled = (vendor: "chat" | "anthropic", model: string, stream: boolean, prefill: string): Call => {
  const call = calls[vendor](model, stream)
  const messages = [{ role: "user", content: "hello" }, { role: "assistant", content: prefill }]
  return { ...call, body: { ...call.body, messages } }
}

/** The content a Chat Completions stream carried. */
export const chatText = (text: string): string =>
  lines(text).flatMap((e: any) => typeof e === "object" ? e.choices.map((c: any) => c.delta.content ?? "") : []).join(
    ""
  )

/** The text an Anthropic stream carried. */
export const anthropicText = (text: string): string =>
  lines(text).filter((e: any) => e?.type === "content_block_delta").map((e: any) => e.delta.text).join("")
