// Issue 26 at the command line: `fallback serve` from the bundle, as a real process on 127.0.0.1,
// over the testkit mock as the upstream, driven with fetch and the official SDKs.
import Anthropic from "@anthropic-ai/sdk"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "@effect/vitest"
import * as ConfigFile from "@fallback/core/ConfigFile"
import * as MockProvider from "@fallback/testkit/MockProvider"
import { Result } from "effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

import OpenAI from "../packages/serve/node_modules/openai/index.mjs"
import { configFile, keys, places, serve, serveEnds, stopAll } from "./serveProcess.js"

const caller = "sk-ant-api03-CALLERsecretsecretsecret0009"

const noKeyIn = (text: string) => {
  for (const key of [...Object.values(keys), caller]) expect(text).not.toContain(key)
}

let mock: MockProvider.Running
beforeAll(async () => {
  mock = await MockProvider.start({ bodies: true, text: "the answer" })
})
afterAll(() => mock.stop())
afterEach(stopAll)

/** Anthropic's two accounts, then an OpenAI-compatible place; the name Claude Code sends an alias of the first. */
const config = (more: Record<string, unknown> = {}) =>
  configFile({
    steps: {
      "anthropic/claude-x": { to: "openai/gpt-x" },
      "anthropic@work/claude-x": { to: "openai/gpt-x" }
    },
    ...places(mock.url),
    aliases: { "claude-sonnet-4-5": "anthropic/claude-x", "claude-at-work": "anthropic@work/claude-x" },
    ...more
  })

const keysAsked = (from: number) => mock.requests().log.slice(from).map((request) => request.key)

describe("fallback serve: the bundle as a gateway on 127.0.0.1", () => {
  it("answers the official SDKs; a rate-limited key moves to the next account within the conversation, which stays moved; a JSON line per request, no key in any", async () => {
    mock.reset()
    mock.script([{ fault: "rate-limit", key: caller, retryAfter: 30 }])
    const served = await serve(config(), keys, ["--port", "0", "--json"])
    const anthropic = new Anthropic({ baseURL: served.url, apiKey: caller, maxRetries: 0 })
    const conversation = { "x-claude-code-session-id": "conversation-1" }
    const first = await anthropic.messages.create(
      { model: "claude-sonnet-4-5", max_tokens: 100, messages: [{ role: "user", content: "hi" }] },
      { headers: conversation }
    )
    expect(first.content).toEqual([expect.objectContaining({ type: "text", text: "the answer" })])
    expect(first.model).toBe("anthropic@work/claude-x")
    // the caller's own key first (rate-limited), then the next account
    expect(keysAsked(0)).toEqual([caller, keys.WORK_KEY])
    const second = await anthropic.messages.stream(
      { model: "claude-sonnet-4-5", max_tokens: 100, messages: [{ role: "user", content: "hi" }] },
      { headers: conversation }
    ).finalMessage()
    expect(second.content).toEqual([expect.objectContaining({ type: "text", text: "the answer" })])
    // moved stays moved: the next turn starts at the work account
    expect(keysAsked(2)).toEqual([keys.WORK_KEY])

    const openai = new OpenAI({ baseURL: `${served.url}/v1`, apiKey: "sk-proj-no-key-of-its-own-here", maxRetries: 0 })
    const chat = await openai.chat.completions.create({
      model: "openai/gpt-x",
      messages: [{ role: "user", content: "hi" }]
    })
    expect(chat.choices[0]!.message.content).toBe("the answer")
    const listed = await fetch(`${served.url}/v1/models`).then((response) => response.json()) as {
      readonly data: ReadonlyArray<{ readonly id: string }>
    }
    expect(listed.data.map((model) => model.id)).toContain("claude-sonnet-4-5")

    const ended = await served.stop()
    expect(ended.code).toBe(0)
    const requests = served.lines().filter((line) => line.type === "request")
    expect(requests.map((line) => [line.method, line.path, line.status])).toEqual([
      ["POST", "/v1/messages", 200],
      ["POST", "/v1/messages", 200],
      ["POST", "/v1/chat/completions", 200],
      ["GET", "/v1/models", 200]
    ])
    expect(requests[0]).toMatchObject({ model: "claude-sonnet-4-5", place: "anthropic@work/claude-x" })
    expect(served.lines().some((line) => line.type === "notice" && line.notice === "Moving")).toBe(true)
    noKeyIn(ended.out)
    noKeyIn(ended.err)
  })

  it("an outage of both Anthropic accounts moves the Anthropic client to the OpenAI-compatible place, said on stderr", async () => {
    mock.reset()
    mock.script([
      { fault: "rate-limit", key: keys.WORK_KEY, retryAfter: 30 },
      { fault: "quota", key: keys.SPARE_KEY }
    ])
    const served = await serve(config(), keys, ["--port", "0", "--no-pass-through"])
    const anthropic = new Anthropic({ baseURL: served.url, apiKey: caller, maxRetries: 0 })
    const answer = await anthropic.messages.create({
      model: "claude-at-work",
      max_tokens: 100,
      messages: [{ role: "user", content: "hi" }]
    })
    expect(answer.model).toBe("openai/gpt-x")
    expect(answer.content).toEqual([expect.objectContaining({ type: "text", text: "the answer" })])
    // the caller's key was never sent: --no-pass-through
    expect(keysAsked(0)).toEqual([keys.WORK_KEY, keys.SPARE_KEY, keys.OPENAI_KEY])
    const ended = await served.stop()
    expect(ended.code).toBe(0)
    expect(ended.err).toMatch(/anthropic@work is rate-limited.*carrying on as spare\n/)
    expect(ended.err).toMatch(/anthropic@spare has no quota left.*carrying on at openai\/gpt-x\n/)
    expect(ended.err).toMatch(
      /POST \/v1\/messages claude-at-work → openai\/gpt-x \(moved from anthropic@work\/claude-x\): 200/
    )
    noKeyIn(ended.out + ended.err)
  })

  it("refuses a non-loopback address without --token-env (exit 2, nothing bound), and with a token refuses a client that does not send it", async () => {
    const refused = await serveEnds(config(), keys, ["--host", "0.0.0.0", "--port", "0"])
    expect(refused.code).toBe(2)
    expect(refused.out).toBe("")
    expect(refused.err).toMatch(
      /^fallback: --host 0\.0\.0\.0 listens beyond this machine's loopback, so it needs --token-env VAR/
    )
    const unset = await serveEnds(config(), keys, ["--host", "0.0.0.0", "--port", "0", "--token-env", "NOT_SET"])
    expect(unset.err).toContain("--token-env NOT_SET: the variable NOT_SET is not set or empty")

    mock.reset()
    const token = "a-token-of-the-teams-0123456789abcdef"
    const served = await serve(config(), { ...keys, TEAM_TOKEN: token }, [
      "--port",
      "0",
      "--json",
      "--token-env",
      "TEAM_TOKEN"
    ])
    const asked = (headers: Record<string, string>) =>
      fetch(`${served.url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify({ model: "openai/gpt-x", messages: [{ role: "user", content: "hi" }] })
      })
    expect((await asked({})).status).toBe(401)
    expect(mock.requests().total).toBe(0)
    const allowed = await asked({ authorization: `Bearer ${token}` })
    expect(allowed.status).toBe(200)
    const ended = await served.stop()
    expect(ended.out + ended.err).not.toContain(token)
  })

  it("a port in use is said with the port, not a stack trace", async () => {
    const first = await serve(config(), keys, ["--port", "0", "--json"])
    const port = new URL(first.url).port
    const second = await serveEnds(config(), keys, ["--port", port])
    expect(second.code).toBe(1)
    expect(second.err.trim()).toBe(
      `fallback: --port ${port}: 127.0.0.1:${port} is taken (another fallback serve?); give another port with --port N, or --port 0 for any free one`
    )
    // ctrl+c stops it cleanly
    expect((await first.stop("SIGINT")).code).toBe(0)
  })

  it("--help says how it is called, with no config read", async () => {
    const help = await serveEnds(configFile("not json"), {}, ["--help"])
    expect(help.code).toBe(0)
    expect(help.out).toMatch(/^Usage: fallback serve \[--port N\] \[--host ADDR --token-env VAR\]/)
    expect(help.out).toContain("--demo")
  })

  it("--demo answers with no keys and no config: the rate-limited account moved, then the other vendor", async () => {
    const served = await serve(configFile({}), {}, ["--demo", "--port", "0", "--json"])
    const anthropic = new Anthropic({ baseURL: served.url, apiKey: "anything", maxRetries: 0 })
    const places: Array<string> = []
    for (let turn = 0; turn < 4; turn++) {
      const answer = await anthropic.messages.create(
        { model: "claude-sonnet-4-5", max_tokens: 100, messages: [{ role: "user", content: "hi" }] },
        { headers: { "x-claude-code-session-id": "demo" } }
      )
      places.push(answer.model)
    }
    expect(places).toEqual([
      "anthropic@spare/claude-sonnet-4-5",
      "anthropic@spare/claude-sonnet-4-5",
      "anthropic@spare/claude-sonnet-4-5",
      "openai/gpt-5.5"
    ])
    const codex = new OpenAI({ baseURL: `${served.url}/v1`, apiKey: "anything", maxRetries: 0 })
    const answered = await codex.responses.create({ model: "gpt-5.5", input: "hi" })
    expect(answered.output_text).toContain("the other vendor")
    const ended = await served.stop()
    expect(ended.code).toBe(0)
    const moves = served.lines().filter((line) => line.type === "notice" && line.notice === "Moving")
    expect(moves.map((line) => line.to)).toEqual(
      expect.arrayContaining(["anthropic@spare/claude-sonnet-4-5", "openai/gpt-5.5"])
    )
  })

  it("--demo answers a client at a default model it names no alias for (the \"*\" alias)", async () => {
    const served = await serve(configFile({}), {}, ["--demo", "--port", "0", "--json"])
    const anthropic = new Anthropic({ baseURL: served.url, apiKey: "anything", maxRetries: 0 })
    const answer = await anthropic.messages.create({
      model: "claude-opus-9-9",
      max_tokens: 100,
      messages: [{ role: "user", content: "hi" }]
    })
    expect(answer.model).toBe("anthropic@spare/claude-sonnet-4-5")
    const codex = new OpenAI({ baseURL: `${served.url}/v1`, apiKey: "anything", maxRetries: 0 })
    const answered = await codex.responses.create({ model: "gpt-6.2-sol", input: "hi" })
    expect(answered.model).toMatch(/claude-sonnet-4-5|gpt-5\.5/)
    expect((await served.stop()).code).toBe(0)
    const requests = served.lines().filter((line) => line.type === "request")
    expect(requests.map((line) => [line.status, line.model])).toEqual([[200, "claude-opus-9-9"], [200, "gpt-6.2-sol"]])
  })
})

/** The README's section on fallback serve, and the first block of a kind after a line in it. */
const readme = () => {
  const text = readFileSync(join(fileURLToPath(new URL("..", import.meta.url)), "README.md"), "utf8")
  const start = text.indexOf("### `fallback serve`")
  return text.slice(start, text.indexOf("\n### ", start + 1))
}
const blockAfter = (section: string, line: string, kind: string) => {
  const found = new RegExp("```" + kind + "\\n([\\s\\S]*?)```").exec(section.slice(section.indexOf(line)))
  if (found === null) throw new Error(`no ${kind} block after ${line}`)
  return found[1]!.replace(/^ {2}/gm, "")
}

describe("the README's fallback serve section, as written", () => {
  it("its aliases config reads, and serve over it lists the aliases; its non-loopback command listens with the token set", async () => {
    const section = readme()
    const json = blockAfter(section, "**Aliases.**", "json")
    const file = configFile(JSON.parse(json))
    expect(Result.isSuccess(ConfigFile.decode(file, json, ConfigFile.builtinClis))).toBe(true)
    const token = "a-token-of-the-readme-0123456789abcdef"
    const command = blockAfter(section, "**Safe by default.**", "sh").split("\n").find((line) =>
      line.startsWith("fallback")
    )!
    expect(command).toBe("fallback serve --host 0.0.0.0 --token-env FALLBACK_TOKEN")
    const served = await serve(file, { FALLBACK_TOKEN: token }, [
      ...command.split(" ").slice(2),
      "--port",
      "0",
      "--json"
    ])
    const url = served.url.replace("0.0.0.0", "127.0.0.1")
    const listed = await fetch(`${url}/v1/models`, { headers: { authorization: `Bearer ${token}` } })
      .then((response) => response.json()) as { readonly data: ReadonlyArray<{ readonly id: string }> }
    expect(listed.data.map((model) => model.id)).toEqual(
      expect.arrayContaining(["claude-sonnet-4-5", "gpt-5.5", "anthropic/claude-sonnet-4-5", "openai/gpt-5.5"])
    )
    expect((await fetch(`${url}/v1/models`)).status).toBe(401)
    expect((await served.stop()).code).toBe(0)
    const opencode = JSON.parse(blockAfter(section, "- opencode", "json"))
    expect(opencode.provider.fallback.options.baseURL).toBe("http://127.0.0.1:4000/v1")
  })
})
