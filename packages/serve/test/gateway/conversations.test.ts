import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import OpenAI from "openai"

import { served } from "./world.js"

/** A request a real CLI sent (test/fixtures/wire, recorded by the agents suite). */
interface Recorded {
  readonly method: string
  readonly path: string
  readonly headers: Record<string, string>
  readonly body: Record<string, unknown>
}

const recorded = (file: string): Recorded =>
  JSON.parse(readFileSync(new URL(`../../../../test/fixtures/wire/${file}.json`, import.meta.url), "utf8"))

const transport = new Set(["host", "content-length", "connection", "accept-encoding", "authorization", "x-api-key"])

/** Sends a recorded request to the gateway as its CLI did (its own headers, a key of ours), reads the answer to its end. */
const replay = (url: string, request: Recorded, headers: Record<string, string> = {}) =>
  Effect.promise(async () => {
    const kept = Object.entries(request.headers).filter(([name]) => !transport.has(name))
    const response = await fetch(`${url}${request.path}`, {
      method: request.method,
      headers: { ...Object.fromEntries(kept), authorization: "Bearer sk-CALLERsecretsecret0011", ...headers },
      body: JSON.stringify(request.body)
    })
    return { status: response.status, text: await response.text() }
  })

/** The aliases of the names the recorded CLIs ask for. */
const aliases = {
  "claude-sonnet-4-5": "anthropic/claude-x",
  "gpt-5.5": "openai/gpt-x",
  "mock-model": "openai/gpt-x",
  "mock-small": "openai/gpt-x"
}

const ask = (url: string, messages: Array<OpenAI.ChatCompletionMessageParam>, options: {
  readonly headers?: Record<string, string>
  readonly promptCacheKey?: string
} = {}) =>
  Effect.promise(() =>
    new OpenAI({ baseURL: `${url}/v1`, apiKey: "sk-CALLERsecretsecret0012", maxRetries: 0 }).chat.completions.create(
      {
        model: "openai/gpt-x",
        messages,
        ...(options.promptCacheKey === undefined ? {} : { prompt_cache_key: options.promptCacheKey })
      },
      { headers: options.headers ?? {} }
    )
  )

describe("Gateway: what names a conversation, from each source", () => {
  it.live("the recorded CLIs' turns: each CLI's first turn and its resumed turn are one conversation, each CLI its own", () =>
    Effect.gen(function*() {
      const { lines, url } = yield* served({ aliases })
      for (
        const file of [
          "anthropic-messages/claude-first-turn",
          "anthropic-messages/claude-resume",
          "openai-responses/codex-first-turn",
          "openai-responses/codex-resume",
          "openai-chat/opencode-first-turn",
          "openai-chat/opencode-resume"
        ]
      ) {
        const answer = yield* replay(url, recorded(file))
        expect(answer.status, `${file}: ${answer.text}`).toBe(200)
      }
      const ids = lines.map((line) => line.conversation)
      expect(ids[0]).toBe(ids[1])
      expect(ids[2]).toBe(ids[3])
      expect(ids[4]).toBe(ids[5])
      expect(new Set(ids).size).toBe(3)
      expect(lines.every((line) => line.kept === true)).toBe(true)
    }))

  it.live("the session header names it: the same request under another session id is another conversation", () =>
    Effect.gen(function*() {
      const { lines, url } = yield* served({ aliases })
      const claude = recorded("anthropic-messages/claude-first-turn")
      const codex = recorded("openai-responses/codex-first-turn")
      const opencode = recorded("openai-chat/opencode-first-turn")
      yield* replay(url, claude)
      yield* replay(url, claude, { "x-claude-code-session-id": "another-session" })
      // codex names it by session-id (and prompt_cache_key); another session-id is another conversation
      yield* replay(url, codex)
      yield* replay(url, codex, { "session-id": "another-session", "thread-id": "another-session" })
      yield* replay(url, opencode)
      yield* replay(url, opencode, { "x-session-id": "another-session" })
      const ids = lines.map((line) => line.conversation)
      expect(lines.map((line) => line.status)).toEqual([200, 200, 200, 200, 200, 200])
      expect(new Set(ids).size).toBe(6)
    }))

  it.live("Claude Code's metadata.user_id names its session when no header does", () =>
    Effect.gen(function*() {
      const { lines, url } = yield* served({ aliases })
      const claude = recorded("anthropic-messages/claude-first-turn")
      const session = (id: string) => ({
        ...claude,
        headers: Object.fromEntries(
          Object.entries(claude.headers).filter(([name]) => name !== "x-claude-code-session-id")
        ),
        body: {
          ...claude.body,
          metadata: { user_id: JSON.stringify({ device_id: "d", account_uuid: "", session_id: id }) }
        }
      })
      yield* replay(url, session("s-1"))
      yield* replay(url, session("s-2"))
      yield* replay(url, {
        ...session("s-1"),
        body: { ...session("s-1").body, messages: [{ role: "user", content: "x" }] }
      })
      const ids = lines.map((line) => line.conversation)
      expect(ids[0]).not.toBe(ids[1])
      expect(ids[2]).toBe(ids[0])
    }))

  it.live("prompt_cache_key names it when no header does", () =>
    Effect.gen(function*() {
      const { lines, url } = yield* served()
      yield* ask(url, [{ role: "user", content: "hi" }], { promptCacheKey: "k-1" })
      yield* ask(url, [{ role: "user", content: "hi" }], { promptCacheKey: "k-2" })
      yield* ask(url, [{ role: "user", content: "something else" }], { promptCacheKey: "k-1" })
      const ids = lines.map((line) => line.conversation)
      expect(ids[0]).not.toBe(ids[1])
      expect(ids[2]).toBe(ids[0])
    }))

  it.live("with nothing naming it, its first messages do: one conversation as it grows, another beside it", () =>
    Effect.gen(function*() {
      const { lines, url } = yield* served()
      const system = { role: "system" as const, content: "you are terse" }
      yield* ask(url, [system, { role: "user", content: "first question" }])
      yield* ask(url, [
        system,
        { role: "user", content: "first question" },
        { role: "assistant", content: "the answer" },
        { role: "user", content: "second question" }
      ])
      yield* ask(url, [system, { role: "user", content: "another first question" }])
      // the same first message under different session headers: two conversations
      yield* ask(url, [system, { role: "user", content: "first question" }], { headers: { "x-session-id": "a" } })
      yield* ask(url, [system, { role: "user", content: "first question" }], { headers: { "x-session-id": "b" } })
      const ids = lines.map((line) => line.conversation)
      expect(ids[1]).toBe(ids[0])
      expect(new Set(ids).size).toBe(4)
    }))
})
