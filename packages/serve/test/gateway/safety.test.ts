import { describe, expect, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import OpenAI from "openai"

import { anthropicClient, held, hungUp, openaiClient, secrets, served, untilAsked, untilLogged } from "./world.js"

describe("Gateway: safe by default", () => {
  it.live("with a token, a request without it is 401; with it, answered, and the token is never passed upstream", () =>
    Effect.gen(function*() {
      const { lines, mock, url } = yield* served({ token: Redacted.make("gw-token-0123456789") })
      const refused = yield* Effect.promise(() =>
        openaiClient(url).chat.completions.create({
          model: "openai/gpt-x",
          messages: [{ role: "user", content: "hi" }]
        })
          .then(() => undefined, (error: unknown) => error)
      )
      expect(refused).toBeInstanceOf(OpenAI.AuthenticationError)
      const answered = yield* Effect.promise(() =>
        openaiClient(url, "gw-token-0123456789").chat.completions.create({
          model: "openai/gpt-x",
          messages: [{ role: "user", content: "hi" }]
        })
      )
      expect(answered.choices[0]!.message.content).toBe("the answer")
      const log = (yield* mock.requests).log
      expect(log.map((request) => request.key)).toEqual([secrets.OPENAI_API_KEY])
      expect(lines.map((line) => line.status)).toEqual([401, 200])
      expect(JSON.stringify(lines)).not.toContain("gw-token")
    }))

  it.live("a client that hangs up ends the upstream request", () =>
    Effect.gen(function*() {
      const { lines, mock, url } = yield* served()
      const request = held(url, { model: "openai/gpt-fault-slow-token-600000", stream: true })
      expect(yield* hungUp(mock, request)).toBe("abandoned")
      yield* untilLogged(lines, 1)
      expect(lines[0]).toMatchObject({ status: 499, error: "the client went away" })
    }))

  it.live("a client that hangs up on a whole answer ends the upstream request, logged as gone", () =>
    Effect.gen(function*() {
      const { lines, mock, url } = yield* served()
      const request = held(url, { model: "openai/gpt-fault-slow-600000" })
      expect(yield* hungUp(mock, request)).toBe("abandoned")
      yield* untilLogged(lines, 1)
      expect(lines[0]).toMatchObject({ status: 499, stream: false, error: "the client went away" })
    }))

  it.live("past the capacity, a new conversation takes the slot of the least recent idle one and is kept", () =>
    Effect.gen(function*() {
      const { lines, url } = yield* served({ conversations: { capacity: 1 } })
      for (const session of ["one", "two", "three"]) {
        const answer = yield* Effect.promise(() =>
          openaiClient(url).chat.completions.create(
            { model: "openai/gpt-x", messages: [{ role: "user", content: "hi" }] },
            { headers: { "x-session-id": session } }
          )
        )
        expect(answer.choices[0]!.message.content).toBe("the answer")
      }
      expect(new Set(lines.map((line) => line.conversation)).size).toBe(3)
      expect(lines.map((line) => line.kept)).toEqual([true, true, true])
    }))

  it.live("only while every slot is answering a request is a new conversation's turn answered by an agent not kept", () =>
    Effect.gen(function*() {
      const { lines, mock, url } = yield* served({ conversations: { capacity: 1 } })
      const busy = held(url, { model: "openai/gpt-fault-slow-token-600000", stream: true }, {
        headers: { "x-session-id": "busy" }
      })
      yield* untilAsked(mock, 1)
      const answer = yield* Effect.promise(() =>
        openaiClient(url).chat.completions.create(
          { model: "openai/gpt-x", messages: [{ role: "user", content: "hi" }] },
          { headers: { "x-session-id": "new" } }
        )
      )
      expect(answer.choices[0]!.message.content).toBe("the answer")
      expect(lines[0]).toMatchObject({ status: 200, kept: false })
      busy.abort()
      yield* Effect.promise(() => busy.sent)
      yield* untilLogged(lines, 2)
      // the busy one given back, the next new conversation takes its slot
      yield* Effect.promise(() =>
        openaiClient(url).chat.completions.create(
          { model: "openai/gpt-x", messages: [{ role: "user", content: "hi" }] },
          { headers: { "x-session-id": "new" } }
        )
      )
      expect(lines[2]).toMatchObject({ status: 200, kept: true })
    }))

  it.live("GET /v1/models lists places and aliases, in OpenAI's shape or Anthropic's", () =>
    Effect.gen(function*() {
      const { url } = yield* served({ aliases: { "claude-sonnet-4-5": "anthropic/claude-x" } })
      const openai = yield* Effect.promise(() => openaiClient(url).models.list())
      expect(openai.data.map((model) => model.id)).toEqual(["claude-sonnet-4-5", "anthropic/claude-x", "openai/gpt-x"])
      const anthropic = yield* Effect.promise(() => anthropicClient(url).models.list())
      expect(anthropic.data.map((model) => model.id)).toContain("claude-sonnet-4-5")
    }))
})
