import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"

import { anthropicClient, noSecretIn, openaiClient, secrets, served } from "./world.js"

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
