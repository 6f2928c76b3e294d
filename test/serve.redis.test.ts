// Two `fallback serve` processes, each with a config file of its own in a folder of its own, share
// the health of places through one Redis: a place one of them found rate-limited is not asked by
// the other. The mock's counts prove it; nothing is bounded by the clock.
import Anthropic from "@anthropic-ai/sdk"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "@effect/vitest"
import * as MockProvider from "@fallback/testkit/MockProvider"
import * as RedisServer from "@fallback/testkit/RedisServer"

import { configFile, keys, places, serve, stopAll } from "./serveProcess.js"

let mock: MockProvider.Running
let redis: RedisServer.RedisServer
beforeAll(async () => {
  mock = await MockProvider.start({ text: "the answer" })
  redis = await RedisServer.start()
}, 60_000)
afterAll(async () => {
  await mock?.stop()
  await redis?.close()
})
afterEach(stopAll)

const config = (health: unknown) =>
  configFile({
    steps: { "anthropic@work/claude-x": { to: "openai/gpt-x" } },
    ...places(mock.url),
    aliases: { "claude-sonnet-4-5": "anthropic@work/claude-x" },
    health
  })

const ask = (url: string) =>
  new Anthropic({ baseURL: url, apiKey: "sk-ant-api03-CALLERsecret", maxRetries: 0 }).messages.create({
    model: "claude-sonnet-4-5",
    max_tokens: 100,
    messages: [{ role: "user", content: "hi" }]
  })

const workAsked = () => mock.requests().log.filter((request) => request.key === keys.WORK_KEY).length

describe("fallback serve: two processes sharing health through Redis", () => {
  it("the account process A found rate-limited is skipped by process B on its next request", async () => {
    mock.reset()
    mock.script([{ fault: "rate-limit", key: keys.WORK_KEY, retryAfter: 120 }])
    const health = { store: "redis", url: { fromEnv: "TEAM_REDIS_URL" }, prefix: `serve-${process.pid}:` }
    const env = { ...keys, TEAM_REDIS_URL: redis.url }
    const args = ["--port", "0", "--json", "--no-pass-through"]
    const [a, b] = await Promise.all([serve(config(health), env, args), serve(config(health), env, args)])

    expect((await ask(a.url)).model).toBe("anthropic@spare/claude-x")
    expect(workAsked()).toBe(1)
    // B never asks the work account: A's cooldown of it is in Redis
    expect((await ask(b.url)).model).toBe("anthropic@spare/claude-x")
    expect(workAsked()).toBe(1)
    const skipped = b.lines().filter((line) => line.type === "notice" && line.notice === "Skipping")
    expect(skipped.map((line) => line.place)).toContain("anthropic@work/claude-x")

    for (const ended of await Promise.all([a.stop(), b.stop()])) {
      expect(ended.code).toBe(0)
      expect(ended.out + ended.err).not.toContain(keys.WORK_KEY)
    }
  })

  it("with health in each one's own file, B asks the account again: the sharing is Redis's", async () => {
    mock.reset()
    mock.script([{ fault: "rate-limit", key: keys.WORK_KEY, retryAfter: 120 }])
    const args = ["--port", "0", "--json", "--no-pass-through"]
    const [a, b] = await Promise.all([serve(config(undefined), keys, args), serve(config(undefined), keys, args)])
    await ask(a.url)
    await ask(b.url)
    expect(workAsked()).toBe(2)
    await Promise.all([a.stop(), b.stop()])
  })
})
