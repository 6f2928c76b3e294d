/** Calls of each vendor's API, as a client sends them to the mock provider, and how a client reads the answers. */
import { Effect } from "effect"

export interface Call {
  readonly path: string
  readonly body: Record<string, unknown>
  readonly headers: Record<string, string>
}

export const calls = {
  anthropic: (model: string, stream: boolean): Call => ({
    path: "/v1/messages?beta=true",
    body: { model, stream, max_tokens: 100, messages: [{ role: "user", content: "hello" }] },
    headers: { "x-api-key": "test-key", "anthropic-version": "2023-06-01" }
  }),
  chat: (model: string, stream: boolean): Call => ({
    path: "/v1/chat/completions",
    body: { model, stream, messages: [{ role: "user", content: "hello" }] },
    headers: { authorization: "Bearer test-key" }
  }),
  responses: (model: string, stream: boolean): Call => ({
    path: "/v1/responses",
    body: { model, stream, input: [{ role: "user", content: [{ type: "input_text", text: "hello" }] }] },
    headers: { authorization: "Bearer test-key" }
  }),
  gemini: (model: string, stream: boolean): Call => ({
    path: `/v1beta/models/${model}:${stream ? "streamGenerateContent?alt=sse" : "generateContent"}`,
    body: { contents: [{ role: "user", parts: [{ text: "hello" }] }] },
    headers: { "x-goog-api-key": "test-key" }
  })
} as const

export type Vendor = keyof typeof calls

export const send = (url: string, call: Call, signal?: AbortSignal) =>
  fetch(`${url}${call.path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...call.headers },
    body: JSON.stringify(call.body),
    ...(signal === undefined ? {} : { signal })
  })

export const request = (url: string, call: Call) =>
  Effect.promise(async () => {
    const response = await send(url, call)
    return { status: response.status, headers: response.headers, text: await response.text() }
  })

/** The `data:` payloads of an SSE body that are JSON. */
export const events = (text: string): ReadonlyArray<any> =>
  text.split(/\r?\n/).filter((line) => line.startsWith("data: ") && line !== "data: [DONE]").map((line) =>
    JSON.parse(line.slice(6))
  )

/** The answer's text as a client of each API reads it, streamed or not. */
export const answerText = (vendor: Vendor, stream: boolean, text: string): string => {
  const parts = stream ? events(text) : [JSON.parse(text)]
  switch (vendor) {
    case "anthropic":
      return stream
        ? parts.filter((e) => e.type === "content_block_delta").map((e) => e.delta.text).join("")
        : parts[0].content[0].text
    case "chat":
      return stream
        ? parts.flatMap((e) => e.choices.map((c: any) => c.delta.content ?? "")).join("")
        : parts[0].choices[0].message.content
    case "responses":
      return stream
        ? parts.filter((e) => e.type === "response.output_text.delta").map((e) => e.delta).join("")
        : parts[0].output[0].content[0].text
    case "gemini":
      return parts.map((e) => e.candidates[0].content.parts[0].text).join("")
  }
}

export const vendors: ReadonlyArray<Vendor> = ["anthropic", "chat", "responses", "gemini"]

export const causeCode = (error: unknown): string | undefined => (error as { cause?: { code?: string } }).cause?.code
