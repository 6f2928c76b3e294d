import Anthropic from "@anthropic-ai/sdk"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import OpenAI from "openai"

import type * as Gateway from "../../src/Gateway.js"
import { secrets, served } from "./world.js"

const anthropicClient = (url: string, apiKey = "sk-ant-api03-CALLERsecretsecret0009") =>
  new Anthropic({ baseURL: url, apiKey, maxRetries: 0 })
const openaiClient = (url: string, apiKey = "sk-proj-CALLERsecretsecretsecret0010") =>
  new OpenAI({ baseURL: `${url}/v1`, apiKey, maxRetries: 0 })

const noSecretIn = (text: string) => {
  for (const secret of [...Object.values(secrets), "CALLERsecret"]) {
    if (!secret.startsWith("key-fault")) expect(text).not.toContain(secret)
  }
}

describe("Gateway: each wire, whole and streamed, over the mock upstream", () => {
  it.live("Chat Completions, whole and streamed, answered by the OpenAI place with its model and headers", () =>
    Effect.gen(function*() {
      const { lines, mock, url } = yield* served()
      const client = openaiClient(url)
      const { data, response } = yield* Effect.promise(() =>
        client.chat.completions.create({ model: "openai/gpt-x", messages: [{ role: "user", content: "hi" }] })
          .withResponse()
      )
      expect(data.choices[0]!.message.content).toBe("the answer")
      expect(data.model).toContain("openai")
      expect(response.headers.get("x-fallback-place")).toContain("/gpt-x")
      const stream = yield* Effect.promise(() =>
        client.chat.completions.create({ model: "gpt-x", stream: true, messages: [{ role: "user", content: "hi" }] })
      )
      let text = ""
      yield* Effect.promise(async () => {
        for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? ""
      })
      expect(text).toBe("the answer")
      const log = (yield* mock.requests).log
      expect(log.map((request) => request.route)).toEqual(["chat", "chat"])
      // the caller's own key went first, as the first account of the place of its own wire
      expect(log[0]!.key).toBe("sk-proj-CALLERsecretsecretsecret0010")
      expect(lines.map((line) => [line.status, line.moved, line.from])).toEqual([[200, false, undefined], [
        200,
        false,
        undefined
      ]])
      noSecretIn(JSON.stringify(lines))
    }))

  it.live("Responses, whole and streamed", () =>
    Effect.gen(function*() {
      const { url } = yield* served()
      const client = openaiClient(url)
      const whole = yield* Effect.promise(() => client.responses.create({ model: "openai/gpt-x", input: "hi" }))
      expect(whole.output_text).toBe("the answer")
      const stream = yield* Effect.promise(() =>
        client.responses.create({ model: "openai/gpt-x", input: "hi", stream: true })
      )
      let text = ""
      yield* Effect.promise(async () => {
        for await (const event of stream) if (event.type === "response.output_text.delta") text += event.delta
      })
      expect(text).toBe("the answer")
    }))

  it.live("Anthropic Messages, whole and streamed, and count_tokens answered locally", () =>
    Effect.gen(function*() {
      const { mock, url } = yield* served()
      const client = anthropicClient(url)
      const whole = yield* Effect.promise(() =>
        client.messages.create({
          model: "anthropic/claude-x",
          max_tokens: 100,
          messages: [{ role: "user", content: "hi" }]
        })
      )
      expect(whole.content).toEqual([expect.objectContaining({ type: "text", text: "the answer" })])
      const streamed = yield* Effect.promise(() =>
        client.messages.stream({ model: "claude-x", max_tokens: 100, messages: [{ role: "user", content: "hi" }] })
          .finalMessage()
      )
      expect(streamed.content).toEqual([expect.objectContaining({ type: "text", text: "the answer" })])
      expect(streamed.stop_reason).toBe("end_turn")
      const counted = yield* Effect.promise(() =>
        client.messages.countTokens({ model: "claude-x", messages: [{ role: "user", content: "hello there" }] })
      )
      expect(counted.input_tokens).toBeGreaterThan(0)
      expect((yield* mock.requests).log.map((request) => request.route)).toEqual(["anthropic", "anthropic"])
    }))
})

describe("Gateway: a conversation moves and stays moved", () => {
  it.live("a turn on a rate-limited key moves accounts, then to the OpenAI place, one clean message; the next turn starts there", () =>
    Effect.gen(function*() {
      const { lines, mock, url } = yield* served()
      const client = anthropicClient(url, "key-fault-rate-limit-30")
      const first = yield* Effect.promise(() =>
        client.messages.stream({
          model: "anthropic/claude-x",
          max_tokens: 100,
          system: "you are terse",
          messages: [{ role: "user", content: "first question" }]
        }).finalMessage()
      )
      expect(first.content).toEqual([expect.objectContaining({ type: "text", text: "the answer" })])
      expect(first.model).toContain("openai")
      const asked = (yield* mock.requests).log
      expect(asked.map((request) => [request.route, request.key])).toEqual([
        ["anthropic", "key-fault-rate-limit-30"],
        ["anthropic", "key-fault-overloaded"],
        ["chat", secrets.OPENAI_API_KEY]
      ])
      expect(lines[0]).toMatchObject({ status: 200, place: "openai/gpt-x", moved: true, stream: true })
      expect(lines[0]!.from).toMatch(/^anthropic@caller-[0-9a-f]{8}\/claude-x$/)

      const { data, response } = yield* Effect.promise(() =>
        client.messages.create({
          model: "anthropic/claude-x",
          max_tokens: 100,
          system: "you are terse",
          messages: [
            { role: "user", content: "first question" },
            { role: "assistant", content: "the answer" },
            { role: "user", content: "second question" }
          ]
        }).withResponse()
      )
      expect(data.content).toEqual([expect.objectContaining({ type: "text", text: "the answer" })])
      expect(response.headers.get("x-fallback-place")).toBe("openai/gpt-x")
      const counts = yield* mock.requests
      expect(counts.byRoute).toMatchObject({ anthropic: 2, chat: 2 })
      noSecretIn(JSON.stringify(lines))
    }))

  it.live("a tool call made at the OpenAI place reaches the Anthropic client as a tool_use with its input", () =>
    Effect.gen(function*() {
      const { mock, url } = yield* served()
      yield* mock.script([{ fault: "answer", route: "chat", tool: { name: "get_weather", input: { city: "Paris" } } }])
      const client = anthropicClient(url)
      const message = yield* Effect.promise(() =>
        client.messages.stream({
          model: "openai/gpt-x",
          max_tokens: 100,
          tools: [{
            name: "get_weather",
            description: "the weather in a city",
            input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }
          }],
          messages: [{ role: "user", content: "weather in Paris?" }]
        }).finalMessage()
      )
      const use = message.content.find((block) => block.type === "tool_use")
      expect(use).toMatchObject({ type: "tool_use", name: "get_weather", input: { city: "Paris" } })
      expect(message.stop_reason).toBe("tool_use")
      const sent = (yield* mock.requests).log[0]!.body as { readonly tools: ReadonlyArray<any> }
      expect(sent.tools[0]).toMatchObject({ type: "function", function: { name: "get_weather" } })
    }))
})

describe("Gateway: tool calls the other way", () => {
  it.live("a tool call made at the Anthropic place reaches the OpenAI client, streamed, with its arguments", () =>
    Effect.gen(function*() {
      const { mock, url } = yield* served({ passThrough: false })
      yield* mock.script([{
        fault: "answer",
        route: "anthropic",
        tool: { name: "read_file", input: { path: "a.txt" } }
      }])
      const stream = yield* Effect.promise(() =>
        openaiClient(url).chat.completions.create({
          model: "anthropic/claude-x",
          stream: true,
          tools: [{
            type: "function",
            function: { name: "read_file", parameters: { type: "object", properties: { path: { type: "string" } } } }
          }],
          messages: [{ role: "user", content: "read a.txt" }]
        })
      )
      let name = ""
      let args = ""
      let finish: string | null | undefined
      yield* Effect.promise(async () => {
        for await (const chunk of stream) {
          const choice = chunk.choices[0]
          for (const call of choice?.delta?.tool_calls ?? []) {
            name += call.function?.name ?? ""
            args += call.function?.arguments ?? ""
          }
          finish = choice?.finish_reason ?? finish
        }
      })
      expect(name).toBe("read_file")
      expect(JSON.parse(args)).toEqual({ path: "a.txt" })
      expect(finish).toBe("tool_calls")
      const sent = (yield* mock.requests).log[0]!.body as { readonly tools: ReadonlyArray<any> }
      expect(sent.tools[0]).toMatchObject({ name: "read_file" })
    }))
})

describe("Gateway: what the client sees when it fails", () => {
  it.live("every place cooling: the Anthropic SDK's RateLimitError with a Retry-After", () =>
    Effect.gen(function*() {
      const { mock, url } = yield* served()
      yield* mock.script([{ fault: "rate-limit", retryAfter: 30 }])
      const client = anthropicClient(url)
      const error = yield* Effect.promise(() =>
        client.messages.create({
          model: "anthropic/claude-x",
          max_tokens: 10,
          messages: [{ role: "user", content: "hi" }]
        })
          .then(() => undefined, (error: unknown) => error)
      )
      expect(error).toBeInstanceOf(Anthropic.RateLimitError)
      const seconds = Number((error as InstanceType<typeof Anthropic.RateLimitError>).headers.get("retry-after"))
      expect(seconds).toBeGreaterThan(0)
      expect(seconds).toBeLessThanOrEqual(30)
      noSecretIn(String((error as Error).message))
      // now every place is cooling: the next call is refused from health, nothing sent upstream
      const asked = (yield* mock.requests).total
      const again = yield* Effect.promise(() =>
        client.messages.create({
          model: "anthropic/claude-x",
          max_tokens: 10,
          messages: [{ role: "user", content: "hi" }]
        })
          .then(() => undefined, (error: unknown) => error)
      )
      expect(again).toBeInstanceOf(Anthropic.RateLimitError)
      const left = Number((again as InstanceType<typeof Anthropic.RateLimitError>).headers.get("retry-after"))
      expect(left).toBeGreaterThan(0)
      expect(left).toBeLessThanOrEqual(30)
      expect((yield* mock.requests).total).toBe(asked)
    }))

  it.live("a whole answer that moved says where in its model field and headers", () =>
    Effect.gen(function*() {
      const { url } = yield* served()
      const { data, response } = yield* Effect.promise(() =>
        anthropicClient(url, "key-fault-rate-limit-30").messages.create({
          model: "anthropic/claude-x",
          max_tokens: 10,
          messages: [{ role: "user", content: "hi" }]
        }).withResponse()
      )
      expect(data.model).toBe("openai/gpt-x")
      expect(response.headers.get("x-fallback-place")).toBe("openai/gpt-x")
      expect(response.headers.get("x-fallback-from")).toMatch(/^anthropic@caller-[0-9a-f]{8}\/claude-x$/)
    }))

  it.live("with passThrough false the caller's key is never sent upstream", () =>
    Effect.gen(function*() {
      const { mock, url } = yield* served({ passThrough: false })
      yield* Effect.promise(() =>
        anthropicClient(url).messages.create({
          model: "anthropic/claude-x",
          max_tokens: 10,
          messages: [{ role: "user", content: "hi" }]
        })
      )
      expect((yield* mock.requests).log.map((request) => request.key)).toEqual([secrets.ANTHROPIC_API_KEY])
    }))

  it.live("a stream cut after its first content, with nowhere to continue, ends in the wire's error event, never silently", () =>
    Effect.gen(function*() {
      const { url } = yield* served({ passThrough: false }, [])
      const stream = anthropicClient(url).messages.stream({
        model: "openai/gpt-fault-cut",
        max_tokens: 10,
        messages: [{ role: "user", content: "hi" }]
      })
      const error = yield* Effect.promise(() => stream.finalMessage().then(() => undefined, (error: unknown) => error))
      expect(error).toBeInstanceOf(Anthropic.APIError)
      noSecretIn(String((error as Error).message))
    }))

  it.live("a defect while answering is the wire's 500, its message masked, with its log line", () =>
    Effect.gen(function*() {
      const lines: Array<Gateway.Logged> = []
      const caller = "sk-proj-CALLERsecretsecretsecret0010"
      const token = "gw-token-0123456789"
      const { url } = yield* served({
        token: Redacted.make(token),
        // the log line of the answer breaks, naming the caller's key and the gateway's token
        log: (line) =>
          line.status === 200
            ? Effect.die(new Error(`broke at ${caller} ${token}`))
            : Effect.sync(() => void lines.push(line))
      })
      const error = yield* Effect.promise(() =>
        openaiClient(url, token).chat.completions.create({
          model: "openai/gpt-x",
          messages: [{ role: "user", content: "hi" }]
        }, { headers: { "x-api-key": caller } }).then(() => undefined, (error: unknown) => error)
      )
      expect(error).toBeInstanceOf(OpenAI.InternalServerError)
      expect(String((error as Error).message)).toContain("the gateway failed")
      noSecretIn(String((error as Error).message))
      expect(String((error as Error).message)).not.toContain(token)
      expect(lines).toEqual([expect.objectContaining({ status: 500, model: "openai/gpt-x", error: "api_error" })])
    }))

  it.live("a body the wire cannot read is 400 naming what is wrong", () =>
    Effect.gen(function*() {
      const { url } = yield* served()
      const error = yield* Effect.promise(() =>
        anthropicClient(url).messages.create({ model: "anthropic/claude-x" } as any).then(
          () => undefined,
          (error: unknown) => error
        )
      )
      expect(error).toBeInstanceOf(Anthropic.BadRequestError)
    }))

  it.live("an unknown model is 404 in the client's wire, naming the nearest", () =>
    Effect.gen(function*() {
      const { url } = yield* served()
      const error = yield* Effect.promise(() =>
        openaiClient(url).chat.completions.create({ model: "gpt-y", messages: [{ role: "user", content: "hi" }] })
          .then(() => undefined, (error: unknown) => error)
      )
      expect(error).toBeInstanceOf(OpenAI.NotFoundError)
      expect(String((error as Error).message)).toContain("gpt-x")
    }))

  it.live("invalid JSON is 400 in the wire's shape; an unknown route 404 in plain JSON", () =>
    Effect.gen(function*() {
      const { url } = yield* served()
      const bad = yield* Effect.promise(() =>
        fetch(`${url}/v1/messages`, { method: "POST", body: "{", headers: { "content-type": "application/json" } })
      )
      expect(bad.status).toBe(400)
      const body = yield* Effect.promise(() => bad.json() as Promise<any>)
      expect(body.type).toBe("error")
      expect(JSON.stringify(body)).not.toContain("    at ")
      const missing = yield* Effect.promise(() => fetch(`${url}/v2/nothing`))
      expect(missing.status).toBe(404)
      expect(yield* Effect.promise(() => missing.json() as Promise<any>)).toMatchObject({
        error: { type: "not_found" }
      })
    }))

  it.live("a body over the limit is 413, in the wire's shape", () =>
    Effect.gen(function*() {
      const { mock, url } = yield* served({ bodyLimit: 2000 })
      const error = yield* Effect.promise(() =>
        openaiClient(url).chat.completions.create({
          model: "openai/gpt-x",
          messages: [{ role: "user", content: "x".repeat(5000) }]
        }).then(() => undefined, (error: unknown) => error)
      )
      expect((error as { readonly status: number }).status).toBe(413)
      expect((yield* mock.requests).total).toBe(0)
    }))
})

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
      const abort = new AbortController()
      const sent = fetch(`${url}/v1/chat/completions`, {
        method: "POST",
        signal: abort.signal,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          model: "openai/gpt-fault-slow-token-600000",
          stream: true,
          messages: [{ role: "user", content: "hi" }]
        })
      }).catch(() => undefined)
      while ((yield* mock.requests).total === 0) yield* Effect.sleep("10 millis")
      abort.abort()
      yield* Effect.promise(() => sent)
      while ((yield* mock.requests).log[0]!.ended === "pending") yield* Effect.sleep("10 millis")
      expect((yield* mock.requests).log[0]!.ended).toBe("abandoned")
      while (lines.length === 0) yield* Effect.sleep("10 millis")
      expect(lines[0]).toMatchObject({ status: 499, error: "the client went away" })
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
      const abort = new AbortController()
      const held = fetch(`${url}/v1/chat/completions`, {
        method: "POST",
        signal: abort.signal,
        headers: { "content-type": "application/json", "x-session-id": "busy" },
        body: JSON.stringify({
          model: "openai/gpt-fault-slow-token-600000",
          stream: true,
          messages: [{ role: "user", content: "hi" }]
        })
      }).catch(() => undefined)
      while ((yield* mock.requests).total === 0) yield* Effect.sleep("10 millis")
      const answer = yield* Effect.promise(() =>
        openaiClient(url).chat.completions.create(
          { model: "openai/gpt-x", messages: [{ role: "user", content: "hi" }] },
          { headers: { "x-session-id": "new" } }
        )
      )
      expect(answer.choices[0]!.message.content).toBe("the answer")
      expect(lines[0]).toMatchObject({ status: 200, kept: false })
      abort.abort()
      yield* Effect.promise(() => held)
      while (lines.length < 2) yield* Effect.sleep("10 millis")
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
