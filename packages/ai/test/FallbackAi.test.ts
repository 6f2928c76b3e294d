import { LanguageModel } from "@effect/ai"
import { describe, expect, it } from "@effect/vitest"
import { Answer, Notice } from "@fallback/core"
import { MockProvider } from "@fallback/testkit"
import { Effect, Fiber, Layer, Option, TestClock } from "effect"
import { FallbackAi } from "../src/index.js"
import { heard, keys, secrets, world } from "./world.js"

const noKey = (text: string) => {
  for (const secret of Object.values(secrets)) expect(text).not.toContain(secret)
}

/** Waits, on the real clock, until the mock has been asked `n` times. */
const asked = (mock: MockProvider.MockProvider["Type"], n: number) =>
  Effect.promise(async () => {
    for (let i = 0; i < 2000; i++) {
      if ((await Effect.runPromise(mock.requests)).total >= n) return
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
  })

const fallbackOf = (part: { readonly metadata: unknown }) => (part.metadata as Record<string, unknown>).fallback

const chained = (url: string, chain: ReadonlyArray<string>, options: FallbackAi.Config["options"] = {}) =>
  FallbackAi.layer(chain[0]!, { options: { firstByte: Option.none(), ...options } }).pipe(
    Layer.provide(world(url, chain))
  )

describe("FallbackAi: a chain of @effect/ai places as a LanguageModel, over HTTP", () => {
  it.scoped("generateText at a rate-limited Anthropic place waits as asked, then moves to OpenAI and answers", () =>
    Effect.gen(function*() {
      heard.length = 0
      const mock = yield* MockProvider.make({ text: "answered by openai" })
      yield* mock.script([{ fault: "rate-limit", route: "anthropic", retryAfter: 30 }])
      const call = yield* LanguageModel.generateText({
        prompt: [
          { role: "system", content: "You are terse." },
          { role: "user", content: "first" },
          { role: "assistant", content: "noted" },
          { role: "user", content: "second" }
        ]
      }).pipe(
        Effect.provide(chained(mock.url, ["anthropic/claude-x", "openai/gpt-x"])),
        Effect.withConfigProvider(keys),
        Effect.fork
      )
      yield* asked(mock, 1)
      yield* TestClock.adjust("30 seconds")
      const response = yield* Fiber.join(call)
      expect(response.text).toBe("answered by openai")
      const finish = response.content.find((part) => part.type === "finish")!
      expect(fallbackOf(finish)).toEqual({ place: "openai/gpt-x", from: "anthropic/claude-x", moved: true })
      const counts = yield* mock.requests
      expect(counts.log.map((r) => `${r.route} ${r.model} ${r.fault}`)).toEqual([
        "anthropic claude-x rate-limit",
        "anthropic claude-x rate-limit",
        "responses gpt-x answer"
      ])
      expect(heard.map((notice) => notice._tag)).toEqual(["Retrying", "Moving"])
      const retrying = heard[0] as Extract<Notice.Notice, { _tag: "Retrying" }>
      expect(retrying.failure._tag).toBe("RateLimited")
      expect(Notice.format(heard[1]!)).toMatch(/carrying on at openai\/gpt-x/)
      noKey(heard.map(Notice.format).join("\n"))
    }))

  it.scopedLive("the whole prompt reaches each place as messages: system, turns, tool calls and results", () =>
    Effect.gen(function*() {
      const mock = yield* MockProvider.make({ bodies: true })
      yield* mock.script([{ fault: "overloaded", route: "anthropic" }])
      yield* LanguageModel.generateText({
        prompt: [
          { role: "system", content: "You are terse." },
          { role: "user", content: "What is the weather?" },
          {
            role: "assistant",
            content: [{ type: "tool-call", id: "call_1", name: "Weather", params: { city: "Oslo" }, providerExecuted: false }]
          },
          {
            role: "tool",
            content: [{ type: "tool-result", id: "call_1", name: "Weather", isFailure: false, result: { sky: "grey" }, providerExecuted: false }]
          },
          { role: "user", content: "And tomorrow?" }
        ]
      }).pipe(
        Effect.provide(chained(mock.url, ["anthropic/claude-x", "openai/gpt-x"], {
          answers: Answer.override(Answer.primary, { RateLimited: Answer.primary.Unknown })
        })),
        Effect.withConfigProvider(keys)
      )
      const [first, second] = (yield* mock.requests).log.map((request) => request.body as any)
      expect(first.system).toEqual([{ type: "text", text: "You are terse." }])
      expect(first.messages.map((m: any) => m.role)).toEqual(["user", "assistant", "user"])
      expect(JSON.stringify(first.messages)).toContain("tool_result")
      expect(JSON.stringify(second.input)).toContain("function_call_output")
      expect(second.input[0]).toMatchObject({ role: "system", content: "You are terse." })
    }))
})
