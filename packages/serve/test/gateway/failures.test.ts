import Anthropic from "@anthropic-ai/sdk"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import OpenAI from "openai"

import type * as Gateway from "../../src/Gateway.js"
import { anthropicClient, noSecretIn, openaiClient, secrets, served } from "./world.js"

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
