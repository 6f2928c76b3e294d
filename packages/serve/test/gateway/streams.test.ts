import Anthropic from "@anthropic-ai/sdk"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import OpenAI from "openai"

import { held, hungUp, secrets, served, untilLogged } from "./world.js"

const openai = (url: string) => new OpenAI({ baseURL: `${url}/v1`, apiKey: "sk-CALLERsecretsecret0013", maxRetries: 0 })
const anthropic = (url: string) => new Anthropic({ baseURL: url, apiKey: "sk-ant-CALLERsecret0014", maxRetries: 0 })

const noSecretIn = (text: string) => {
  for (const secret of [...Object.values(secrets), "CALLERsecret"]) {
    if (!secret.startsWith("key-fault")) expect(text).not.toContain(secret)
  }
}

/** A Chat stream read to its end: its text, or the error the SDK threw. */
const chatStream = (url: string, model: string) =>
  Effect.promise(async () => {
    let text = ""
    try {
      const stream = await openai(url).chat.completions.create({
        model,
        stream: true,
        messages: [{ role: "user", content: "hi" }]
      })
      for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? ""
      return { text, error: undefined }
    } catch (error) {
      return { text, error }
    }
  })

/** A Responses stream read to its end: its text, whether it completed, or the error the SDK threw. */
const responsesStream = (url: string, model: string) =>
  Effect.promise(async () => {
    let text = ""
    let completed: string | undefined
    try {
      const stream = await openai(url).responses.create({ model, input: "hi", stream: true })
      for await (const event of stream) {
        if (event.type === "response.output_text.delta") text += event.delta
        if (event.type === "response.completed") {
          completed = event.response.output.flatMap((item) =>
            item.type === "message" ? item.content.map((c) => (c.type === "output_text" ? c.text : "")) : []
          ).join("")
        }
      }
      return { text, completed, error: undefined }
    } catch (error) {
      return { text, completed, error }
    }
  })

describe("Gateway: a stream that fails after its commit point, with nowhere to continue", () => {
  for (const fault of ["cut", "stream-error"]) {
    it.live(`Chat (${fault}): the openai SDK throws, never a silent truncation`, () =>
      Effect.gen(function*() {
        const { lines, url } = yield* served({ passThrough: false }, [])
        const read = yield* chatStream(url, `openai/gpt-fault-${fault}`)
        expect(read.error).toBeInstanceOf(OpenAI.APIError)
        noSecretIn(String((read.error as Error).message))
        // a cut comes after content (an in-stream error); the mock's stream-error before any (the wire's error status)
        expect(lines[0]).toMatchObject({ status: fault === "cut" ? 200 : 502, stream: true })
        expect(lines[0]!.error).toBeDefined()
      }))

    it.live(`Responses (${fault}): the openai SDK throws, never a silent truncation`, () =>
      Effect.gen(function*() {
        const { url } = yield* served({ passThrough: false }, [])
        const read = yield* responsesStream(url, `openai/gpt-fault-${fault}`)
        expect(read.completed).toBeUndefined()
        expect(read.error).toBeInstanceOf(OpenAI.APIError)
        noSecretIn(String((read.error as Error).message))
      }))
  }

  it.live("Anthropic (stream-error): the Anthropic SDK throws", () =>
    Effect.gen(function*() {
      const { url } = yield* served({ passThrough: false }, [])
      const error = yield* Effect.promise(() =>
        anthropic(url).messages.stream({
          model: "openai/gpt-fault-stream-error",
          max_tokens: 10,
          messages: [{ role: "user", content: "hi" }]
        }).finalMessage().then(() => undefined, (error: unknown) => error)
      )
      expect(error).toBeInstanceOf(Anthropic.APIError)
    }))
})

describe("Gateway: a stream cut after content, continued at the Anthropic place (prefill), is one clean message", () => {
  const chain = ["openai/gpt-fault-cut", "anthropic/claude-x"]

  it.live("on the Anthropic wire", () =>
    Effect.gen(function*() {
      const { lines, mock, url } = yield* served({ passThrough: false }, chain)
      const message = yield* Effect.promise(() =>
        anthropic(url).messages.stream({
          model: "openai/gpt-fault-cut",
          max_tokens: 100,
          messages: [{ role: "user", content: "hi" }]
        }).finalMessage()
      )
      expect(message.content).toEqual([expect.objectContaining({ type: "text", text: "the answer" })])
      expect(message.stop_reason).toBe("end_turn")
      const log = (yield* mock.requests).log
      expect(log.map((request) => request.route)).toEqual(["chat", "anthropic"])
      expect(log[1]!.prefill).toBeTruthy()
      expect(lines[0]).toMatchObject({ status: 200, moved: true, place: "anthropic/claude-x" })
      expect(lines[0]!.error).toBeUndefined()
    }))

  it.live("on the Chat wire", () =>
    Effect.gen(function*() {
      const { mock, url } = yield* served({ passThrough: false }, chain)
      const read = yield* chatStream(url, "openai/gpt-fault-cut")
      expect(read.error).toBeUndefined()
      expect(read.text).toBe("the answer")
      expect((yield* mock.requests).log.map((request) => request.route)).toEqual(["chat", "anthropic"])
    }))

  it.live("on the Responses wire", () =>
    Effect.gen(function*() {
      const { mock, url } = yield* served({ passThrough: false }, chain)
      const read = yield* responsesStream(url, "openai/gpt-fault-cut")
      expect(read.error).toBeUndefined()
      expect(read.text).toBe("the answer")
      expect(read.completed).toBe("the answer")
      expect((yield* mock.requests).log.map((request) => request.route)).toEqual(["chat", "anthropic"])
    }))

  it.live("a client that hangs up while the answer is continued ends the continuing request", () =>
    Effect.gen(function*() {
      const { lines, mock, url } = yield* served({ passThrough: false }, [
        "openai/gpt-fault-cut",
        "anthropic/claude-fault-slow-token-600000"
      ])
      const request = held(url, { model: "openai/gpt-fault-cut", stream: true }, { read: true })
      expect(yield* hungUp(mock, request, 2)).toBe("abandoned")
      yield* untilLogged(lines, 1)
      expect(lines[0]).toMatchObject({ status: 200, error: "the client went away" })
    }))
})

describe("Gateway: where a streamed answer came from", () => {
  it.live("the headers of a stream that moved before its first content name the answering place and the start", () =>
    Effect.gen(function*() {
      const { lines, url } = yield* served({ passThrough: false }, [
        "openai/gpt-fault-overloaded",
        "anthropic/claude-x"
      ])
      for (
        const [path, body] of [
          ["/v1/chat/completions", { messages: [{ role: "user", content: "hi" }] }],
          ["/v1/responses", { input: "hi" }],
          ["/v1/messages", { max_tokens: 10, messages: [{ role: "user", content: "hi" }] }]
        ] as const
      ) {
        const response = yield* Effect.promise(() =>
          fetch(`${url}${path}`, {
            method: "POST",
            // a conversation each: one that moved stays moved, and its next turn is not a move
            headers: { "content-type": "application/json", "x-session-id": path },
            body: JSON.stringify({ model: "openai/gpt-fault-overloaded", stream: true, ...body })
          })
        )
        expect(response.headers.get("content-type")).toContain("text/event-stream")
        expect(response.headers.get("x-fallback-place")).toBe("anthropic/claude-x")
        expect([path, response.headers.get("x-fallback-from")]).toEqual([path, "openai/gpt-fault-overloaded"])
        const text = yield* Effect.promise(() => response.text())
        expect(text).toContain("anthropic/claude-x")
      }
      expect(lines.map((line) => [line.status, line.place, line.moved, line.from])).toEqual(
        Array(3).fill([200, "anthropic/claude-x", true, "openai/gpt-fault-overloaded"])
      )
    }))
})
