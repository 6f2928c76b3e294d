/**
 * What the real CLIs send at their DEFAULT models (no --model / -m), recorded in test/fixtures/wire:
 * claude's system message among the messages, codex's tools in an `additional_tools` item and its
 * WebSocket attempt before the HTTPS POST (codex's built-in provider).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { readFileSync } from "node:fs"
import * as http from "node:http"

import { served } from "./world.js"

const recorded = (file: string): any =>
  JSON.parse(readFileSync(new URL(`../../../../test/fixtures/wire/${file}.json`, import.meta.url), "utf8"))

/** The bodies the mock received on `route`, in order. */
const bodies = (mock: { readonly requests: Effect.Effect<{ readonly log: ReadonlyArray<any> }> }, route: string) =>
  Effect.map(mock.requests, (counts) => counts.log.filter((r) => r.route === route).map((r) => r.body))

const post = (url: string, path: string, headers: Record<string, string>, body: unknown) =>
  Effect.promise(async () => {
    const response = await fetch(`${url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body)
    })
    return { status: response.status, text: await response.text() }
  })

const claude = recorded("anthropic-messages/claude-default-model")
const environment: string = claude.body.messages[1].content[0].text

describe("Gateway: claude at its default model (a system message among the messages)", () => {
  it.live("an Anthropic place gets it joined to the system prompt, after the client's own", () =>
    Effect.gen(function*() {
      const { mock, url } = yield* served({ passThrough: false }, [])
      const body = { ...claude.body, model: "anthropic/claude-x", stream: false }
      const answer = yield* post(url, "/v1/messages", { "x-api-key": "sk-ant-CALLERsecret0031" }, body)
      expect(answer.status).toBe(200)
      expect(answer.text).toContain("the answer")
      const [sent] = yield* bodies(mock, "anthropic")
      expect(sent.system.map((block: any) => block.text)).toEqual([
        ...claude.body.system.map((block: any) => block.text),
        environment
      ])
      expect(sent.messages.map((message: any) => message.role)).toEqual(["user"])
    }))

  it.live("moved to an OpenAI place: a system message where it stood, after the first user message", () =>
    Effect.gen(function*() {
      const { mock, url } = yield* served()
      const body = { ...claude.body, model: "anthropic/claude-x", stream: false }
      const answer = yield* post(url, "/v1/messages", { "x-api-key": "key-fault-rate-limit-30" }, body)
      expect(answer.status).toBe(200)
      expect(answer.text).toContain("the answer")
      const [sent] = yield* bodies(mock, "chat")
      const roles = sent.messages.map((message: any) => message.role)
      expect(roles).toEqual([...claude.body.system.map(() => "system"), "user", "system"])
      expect(sent.messages.at(-1).content).toBe(environment)
    }))
})

const codex = recorded("openai-responses/codex-default-model")

describe("Gateway: codex at its default model (its tools in an additional_tools item)", () => {
  it.live("answers the turn, the place offered the functions it carried (its custom exec as a function of { input })", () =>
    Effect.gen(function*() {
      const { mock, url } = yield* served({ passThrough: false }, [])
      const body = { ...codex.body, model: "openai/gpt-x", stream: false }
      const answer = yield* post(url, "/v1/responses", { authorization: "Bearer sk-CALLERsecretsecret0032" }, body)
      expect(answer.status).toBe(200)
      expect(answer.text).toContain("the answer")
      const [sent] = yield* bodies(mock, "chat")
      const functions = codex.body.input[0].tools[0].tools
      expect(sent.tools.map((t: any) => t.function.name)).toEqual(functions.map((t: any) => t.name))
      expect(sent.tools[0].function.parameters).toMatchObject({ properties: { input: { type: "string" } } })
      expect(sent.messages.map((m: any) => m.role)).toEqual(
        codex.body.input.slice(1).map((item: any) => item.role === "user" ? "user" : "system")
      )
    }))
})

/** A GET as codex's WebSocket client sends it (fetch cannot send an Upgrade header). */
const upgrade = (url: string, path: string, headers: Record<string, string> = {}) =>
  Effect.promise(() =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const request = http.get(`${url}${path}`, {
        headers: {
          connection: "Upgrade",
          upgrade: "websocket",
          "sec-websocket-version": "13",
          "sec-websocket-key": "hkYFB6+Kv1SwbNBBObB5Gw==",
          "openai-beta": "responses_websockets=2026-02-06",
          ...headers
        }
      }, (response) => {
        let body = ""
        response.on("data", (chunk) => body += chunk)
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body }))
      })
      request.on("upgrade", () => reject(new Error("upgraded")))
      request.on("error", reject)
    })
  )

describe("Gateway: codex's WebSocket attempt on GET /v1/responses", () => {
  it.live("426 Upgrade Required at once (codex then POSTs on its first try), in OpenAI's error shape, logged", () =>
    Effect.gen(function*() {
      const { lines, mock, url } = yield* served({ token: Redacted.make("gw-token-0123456789") })
      const answer = yield* upgrade(url, "/v1/responses")
      expect(answer.status).toBe(426)
      expect(JSON.parse(answer.body)).toMatchObject({ error: { type: "invalid_request_error" } })
      expect(JSON.parse(answer.body).error.message).toMatch(/POST \/v1\/responses/)
      expect(lines).toMatchObject([{ method: "GET", path: "/v1/responses", status: 426 }])
      expect((yield* mock.requests).total).toBe(0)
    }))

  it.live("a GET without an upgrade, or an upgrade elsewhere, is the 404 it was", () =>
    Effect.gen(function*() {
      const { url } = yield* served()
      const plain = yield* Effect.promise(() => fetch(`${url}/v1/responses`))
      expect(plain.status).toBe(404)
      expect((yield* upgrade(url, "/v1/chat/completions")).status).toBe(404)
    }))
})
