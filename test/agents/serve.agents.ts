/**
 * The real agent CLIs pointed at the gateway (`fallback serve`'s routes) over the mock upstream,
 * each with one variable or option, as a person points them: a turn that starts on the CLI's own
 * rate-limited key moves to the gateway's second account, rate-limited too, then to a place of
 * the other wire, where the answer calls one of the CLI's tools; the CLI runs it, the answer lands,
 * and the CLI's next turn of that conversation (resumed) starts where the first one moved. What the
 * mock was asked proves each move; nothing is bounded by the clock.
 */
import * as MockProvider from "@fallback/testkit/MockProvider"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

import * as Defaults from "./defaults.js"
import * as Gateway from "./gateway.js"
import { claude, codex, opencode, type Ran } from "./run.js"

let mock: MockProvider.Running
// outside the repository: the CLIs read the instructions and git state of the folders above them
const home = fs.mkdtempSync(path.join(os.tmpdir(), "agents-serve-"))

beforeAll(async () => {
  mock = await MockProvider.start({ bodies: true })
})
afterAll(async () => {
  await mock?.stop()
  if (process.env.FALLBACK_AGENTS_KEEP === undefined) fs.rmSync(home, { recursive: true, force: true })
})

const said = "The meeting is at noon, in room 4."

const folder = (name: string) => {
  const made = path.join(home, name)
  fs.mkdirSync(made, { recursive: true })
  fs.writeFileSync(path.join(made, "notes.txt"), "The meeting is at noon.\n")
  return made
}

/** The requests the mock got since `from`, as `route key model`. */
const asked = (from: number) =>
  mock.requests().log.slice(from).map((request) => ({
    route: request.route,
    key: request.key,
    model: request.model,
    fault: request.fault,
    body: request.body as Record<string, unknown>
  }))

/** What the mock was asked, a line each (keys by whose they are), printed for whoever reads the run. */
const story = (title: string, caller: string) => {
  const whose = (key: string) =>
    key === caller ? "caller's key" : Object.entries(Gateway.secrets).find(([, value]) => value === key)?.[0] ?? "?"
  process.stdout.write(
    `${title}\n${
      asked(0).map((request) => `  ${request.route} ${request.model} (${whose(request.key)}): ${request.fault}`).join(
        "\n"
      )
    }\n`
  )
}

/** What the gateway logged, a line each, printed for whoever reads the run. */
const logged = (gateway: Gateway.Running) =>
  process.stdout.write(
    `${
      gateway.lines.map((line) =>
        `  gateway: ${line.method} ${line.path} ${line.status} ${line.model ?? ""} → ${line.place ?? ""}`
      )
        .join("\n")
    }\n`
  )

const shown = (ran: Ran) => `exit ${ran.code}${ran.signal ?? ""}\n${ran.out.slice(-3000)}\n${ran.err.slice(-2000)}`

/** No key of the gateway's or the caller's reached what the CLI printed or the gateway logged. */
const noSecretIn = (text: string, caller: string) => {
  for (const secret of [...Object.values(Gateway.secrets), caller]) expect(text).not.toContain(secret)
}

describe("the real CLIs through the gateway", () => {
  it("claude -p: a rate-limited key moves accounts, then to the OpenAI place, runs its tool there; --resume stays there", async () => {
    const cwd = folder("claude")
    const caller = "sk-ant-api03-callerCLAUDEsecretsecret0009"
    const gateway = await Gateway.start({
      upstream: mock.url,
      chains: [["anthropic/claude-sonnet-4-5", "openai/gpt-4.1"]],
      aliases: { "claude-sonnet-4-5": "anthropic/claude-sonnet-4-5" }
    })
    try {
      mock.reset()
      mock.script([
        { route: "anthropic", key: caller, fault: "rate-limit", retryAfter: 30 },
        { route: "anthropic", fault: "rate-limit", retryAfter: 30 },
        {
          route: "chat",
          model: "gpt-4.1",
          fault: "answer",
          times: 1,
          tool: { name: "Read", input: { file_path: path.join(cwd, "notes.txt") } }
        },
        { route: "chat", model: "gpt-4.1", fault: "answer", text: said }
      ])
      const first = await claude("When is the meeting? Read notes.txt.", { cwd, baseUrl: gateway.url, key: caller })
      story("claude -p", caller)
      const result = first.events.find((event) => event.type === "result")
      expect(result?.is_error, shown(first)).toBe(false)
      expect(result?.result).toContain("noon")
      const turn = asked(0)
      // the caller's own key first, then the gateway's other account: both refused, then the other wire
      expect(turn[0]).toMatchObject({ route: "anthropic", key: caller, fault: "rate-limit" })
      const anthropic = turn.filter((request) => request.route === "anthropic")
      expect(anthropic.map((request) => [request.key, request.fault])).toEqual([
        [caller, "rate-limit"],
        [Gateway.secrets.ANTHROPIC_KEY_WORK, "rate-limit"]
      ])
      const chat = turn.filter((request) => request.route === "chat")
      // the tool call answered at the OpenAI place, then its result sent there, in the same conversation
      expect(chat.map((request) => request.model)).toEqual(["gpt-4.1", "gpt-4.1"])
      expect(JSON.stringify(chat[1]!.body.messages)).toContain("The meeting is at noon.")
      expect(turn.indexOf(chat[0]!)).toBeGreaterThan(turn.indexOf(anthropic.at(-1)!))
      expect(gateway.lines[0]).toMatchObject({ status: 200, place: "openai/gpt-4.1" })

      const session = first.events.find((event) => event.type === "system")?.session_id
      expect(typeof session).toBe("string")
      const before = mock.requests().total
      const next = await claude("And where?", {
        cwd,
        baseUrl: gateway.url,
        key: caller,
        extra: ["--resume", String(session)]
      })
      const resumed = next.events.find((event) => event.type === "result")
      expect(resumed?.is_error, shown(next)).toBe(false)
      expect(resumed?.result).toContain("room 4")
      // moved stays moved: the next turn starts at the OpenAI place, the rate-limited key not asked again
      expect(asked(before).map((request) => request.route)).toEqual(["chat"])
      noSecretIn(first.out + first.err + next.out + next.err + JSON.stringify(gateway.lines), caller)
    } finally {
      await gateway.stop()
    }
  })

  it("codex exec: a rate-limited key moves accounts, then to the Anthropic place, runs its tool there; exec resume stays there", async () => {
    const cwd = folder("codex")
    const caller = "sk-proj-callerCODEXsecretsecretsecret0011"
    const gateway = await Gateway.start({
      upstream: mock.url,
      chains: [["openai/gpt-5.5", "anthropic/claude-opus-4-1"]],
      aliases: { "gpt-5.5": "openai/gpt-5.5" }
    })
    try {
      mock.reset()
      mock.script([
        { route: "chat", key: caller, fault: "rate-limit", retryAfter: 30 },
        { route: "chat", fault: "rate-limit", retryAfter: 30 },
        {
          route: "anthropic",
          model: "claude-opus-4-1",
          fault: "answer",
          times: 1,
          tool: { name: "exec_command", input: { cmd: "cat notes.txt" } }
        },
        { route: "anthropic", model: "claude-opus-4-1", fault: "answer", text: said }
      ])
      const first = await codex("When is the meeting? Read notes.txt.", {
        cwd,
        baseUrl: `${gateway.url}/v1`,
        key: caller
      })
      story("codex exec", caller)
      expect(first.events.some((event) => event.type === "turn.completed"), shown(first)).toBe(true)
      const answer = (ran: Ran) =>
        ran.events.flatMap((event) => {
          const item = event.item as { type?: string; text?: string } | undefined
          return event.type === "item.completed" && item?.type === "agent_message" ? [item.text ?? ""] : []
        }).join("\n")
      expect(answer(first)).toContain("noon")
      const turn = asked(0)
      expect(turn[0]).toMatchObject({ route: "chat", key: caller, fault: "rate-limit" })
      const openai = turn.filter((request) => request.route === "chat")
      expect(openai.map((request) => [request.key, request.fault])).toEqual([
        [caller, "rate-limit"],
        [Gateway.secrets.OPENAI_KEY_WORK, "rate-limit"]
      ])
      const anthropic = turn.filter((request) => request.route === "anthropic")
      expect(anthropic.map((request) => request.model)).toEqual(["claude-opus-4-1", "claude-opus-4-1"])
      // the shell's output went back as a tool_result at the Anthropic place
      expect(JSON.stringify(anthropic[1]!.body.messages)).toContain("The meeting is at noon.")

      const thread = first.events.find((event) => event.type === "thread.started")?.thread_id
      expect(typeof thread).toBe("string")
      const before = mock.requests().total
      const next = await codex("And where?", { cwd, baseUrl: `${gateway.url}/v1`, key: caller, resume: String(thread) })
      expect(next.events.some((event) => event.type === "turn.completed"), shown(next)).toBe(true)
      expect(answer(next)).toContain("room 4")
      expect(asked(before).map((request) => request.route)).toEqual(["anthropic"])
      noSecretIn(first.out + first.err + next.out + next.err + JSON.stringify(gateway.lines), caller)
    } finally {
      await gateway.stop()
    }
  })

  it("opencode run through Chat Completions: a rate-limited key moves accounts, then to the Anthropic place, runs its tool there; --session stays there", async () => {
    const cwd = folder("opencode")
    const caller = "sk-proj-callerOPENCODEsecretsecret0013"
    const gateway = await Gateway.start({
      upstream: mock.url,
      chains: [["openai/mock-model", "anthropic/claude-haiku-4-5"]],
      aliases: { "mock-model": "openai/mock-model", "mock-small": "openai/mock-small" }
    })
    try {
      mock.reset()
      mock.script([
        { route: "chat", model: "mock-model", key: caller, fault: "rate-limit", retryAfter: 30 },
        { route: "chat", model: "mock-model", fault: "rate-limit", retryAfter: 30 },
        { route: "chat", model: "mock-small", fault: "answer", text: "Meeting time" },
        {
          route: "anthropic",
          model: "claude-haiku-4-5",
          fault: "answer",
          times: 1,
          tool: { name: "read", input: { filePath: path.join(cwd, "notes.txt") } }
        },
        { route: "anthropic", model: "claude-haiku-4-5", fault: "answer", text: said }
      ])
      const text = (ran: Ran) =>
        ran.events.flatMap((event) =>
          event.type === "text" ? [String((event.part as { text?: string } | undefined)?.text ?? "")] : []
        ).join("")
      const first = await opencode("When is the meeting? Read notes.txt.", {
        cwd,
        baseUrl: `${gateway.url}/v1`,
        key: caller
      })
      story("opencode run", caller)
      expect(first.events.some((event) => event.type === "error"), shown(first)).toBe(false)
      expect(text(first)).toContain("noon")
      const turn = asked(0).filter((request) => request.model !== "mock-small")
      expect(turn[0]).toMatchObject({ route: "chat", key: caller, fault: "rate-limit" })
      const openai = turn.filter((request) => request.route === "chat")
      expect(openai.map((request) => [request.key, request.fault])).toEqual([
        [caller, "rate-limit"],
        [Gateway.secrets.OPENAI_KEY_WORK, "rate-limit"]
      ])
      const anthropic = turn.filter((request) => request.route === "anthropic")
      expect(anthropic.map((request) => request.model)).toEqual(["claude-haiku-4-5", "claude-haiku-4-5"])
      expect(JSON.stringify(anthropic[1]!.body.messages)).toContain("The meeting is at noon.")

      const session = first.events.find((event) => typeof event.sessionID === "string")?.sessionID
      expect(typeof session).toBe("string")
      const before = mock.requests().total
      const next = await opencode("And where?", {
        cwd,
        baseUrl: `${gateway.url}/v1`,
        key: caller,
        session: String(session)
      })
      expect(next.events.some((event) => event.type === "error"), shown(next)).toBe(false)
      expect(text(next)).toContain("room 4")
      expect(asked(before).filter((request) => request.model !== "mock-small").map((request) => request.route))
        .toEqual(["anthropic"])
      noSecretIn(first.out + first.err + next.out + next.err + JSON.stringify(gateway.lines), caller)
    } finally {
      await gateway.stop()
    }
  })
})

describe("the real CLIs through the gateway at their default models (no --model / -m), routed by the \"*\" alias", () => {
  it("claude -p: its default model goes to the Anthropic start place; a rate-limited key moves accounts, then to the OpenAI place", async () => {
    const cwd = folder("claude-default")
    const caller = "sk-ant-api03-callerCLAUDEdefaultsecret0015"
    const gateway = await Gateway.start({
      upstream: mock.url,
      chains: [["anthropic/claude-sonnet-4-5", "openai/gpt-4.1"]],
      aliases: { "*": "anthropic/claude-sonnet-4-5" }
    })
    try {
      mock.reset()
      mock.script([
        { route: "anthropic", key: caller, fault: "rate-limit", retryAfter: 30 },
        { route: "anthropic", fault: "rate-limit", retryAfter: 30 },
        {
          route: "chat",
          model: "gpt-4.1",
          fault: "answer",
          times: 1,
          tool: { name: "Read", input: { file_path: path.join(cwd, "notes.txt") } }
        },
        { route: "chat", model: "gpt-4.1", fault: "answer", text: said }
      ])
      const first = await Defaults.claude("When is the meeting? Read notes.txt.", {
        cwd,
        baseUrl: gateway.url,
        key: caller
      })
      story("claude -p (default model)", caller)
      logged(gateway)
      const result = first.events.find((event) => event.type === "result")
      expect(result?.is_error, shown(first)).toBe(false)
      expect(result?.result).toContain("noon")
      const turn = asked(0)
      expect(turn.map((request) => [request.route, request.key, request.model, request.fault])).toEqual([
        ["anthropic", caller, "claude-sonnet-4-5", "rate-limit"],
        ["anthropic", Gateway.secrets.ANTHROPIC_KEY_WORK, "claude-sonnet-4-5", "rate-limit"],
        ["chat", Gateway.secrets.OPENAI_API_KEY, "gpt-4.1", "answer"],
        ["chat", Gateway.secrets.OPENAI_API_KEY, "gpt-4.1", "answer"]
      ])
      // the tool's result went back to the OpenAI place
      expect(JSON.stringify(turn[3]!.body.messages)).toContain("The meeting is at noon.")
      // claude asked for its own default model, which only "*" routes
      const posts = gateway.lines.filter((line) => line.method === "POST")
      expect(posts.length).toBe(2)
      // claude 2.1.332's default model, which no alias but "*" names
      for (const line of posts) {
        expect(line).toMatchObject({ model: "claude-opus-5-5", status: 200, place: "openai/gpt-4.1" })
      }
      noSecretIn(first.out + first.err + JSON.stringify(gateway.lines), caller)
    } finally {
      await gateway.stop()
    }
  })

  it("codex exec, built-in provider by openai_base_url: its default model goes to an Anthropic place, which runs codex's exec tool", async () => {
    const cwd = folder("codex-default")
    const caller = "sk-proj-callerCODEXdefaultsecretsecret0017"
    const gateway = await Gateway.start({
      upstream: mock.url,
      chains: [],
      aliases: { "*": "anthropic/claude-opus-4-1" }
    })
    try {
      mock.reset()
      // codex's code-mode `exec` takes JavaScript as free text; the place sees it as a function of { input }
      const script =
        `const r = await tools.exec_command({ cmd: "echo made-through-the-gateway > proof.txt && cat proof.txt" });\ntext(r.output);`
      mock.script([
        {
          route: "anthropic",
          model: "claude-opus-4-1",
          fault: "answer",
          times: 1,
          tool: { name: "exec", input: { input: script } }
        },
        { route: "anthropic", model: "claude-opus-4-1", fault: "answer", text: "proof.txt is made." }
      ])
      const first = await Defaults.codex("Make proof.txt.", { cwd, baseUrl: `${gateway.url}/v1`, key: caller })
      story("codex exec (default model)", caller)
      logged(gateway)
      expect(first.events.some((event) => event.type === "turn.completed"), shown(first)).toBe(true)
      expect(fs.readFileSync(path.join(cwd, "proof.txt"), "utf8")).toBe("made-through-the-gateway\n")
      const turn = asked(0)
      expect(turn.map((request) => [request.route, request.model, request.fault])).toEqual([
        ["anthropic", "claude-opus-4-1", "answer"],
        ["anthropic", "claude-opus-4-1", "answer"]
      ])
      const tools = turn[0]!.body.tools as ReadonlyArray<{ readonly name: string; readonly input_schema: unknown }>
      expect(tools.find((tool) => tool.name === "exec")?.input_schema).toMatchObject({
        type: "object",
        properties: { input: { type: "string" } }
      })
      // the command's output went back to the place as the exec call's result
      expect(JSON.stringify(turn[1]!.body.messages)).toContain("made-through-the-gateway")
      // its WebSocket probe answered 426 once, then it posted at once
      const responses = gateway.lines.filter((line) => line.path.startsWith("/v1/responses"))
      const probes = responses.filter((line) => line.method === "GET")
      expect(probes.length).toBeLessThanOrEqual(1)
      for (const probe of probes) expect(probe.status).toBe(426)
      const post = responses.findIndex((line) => line.method === "POST")
      expect(post).toBeGreaterThanOrEqual(0)
      expect(responses.slice(post).some((line) => line.method === "GET")).toBe(false)
      // codex 0.171's default model, which no alias but "*" names
      expect(responses.filter((line) => line.method === "POST").map((line) => [line.status, line.model, line.place]))
        .toEqual([
          [200, "gpt-6.2-sol", "anthropic/claude-opus-4-1"],
          [200, "gpt-6.2-sol", "anthropic/claude-opus-4-1"]
        ])
      noSecretIn(first.out + first.err + JSON.stringify(gateway.lines), caller)
    } finally {
      await gateway.stop()
    }
  })
})
