/**
 * The real agent CLIs pointed at the gateway (`fallback serve`'s routes) over the mock upstream,
 * each with one variable or option, as a person points them: a turn that starts on the CLI's own
 * rate-limited key moves to the gateway's second account, rate-limited too, then to a place of
 * the other wire, where the answer calls one of the CLI's tools; the CLI runs it, the answer lands,
 * and the CLI's next turn of that conversation (resumed) starts where the first one moved. What the
 * mock was asked proves each move; nothing is bounded by the clock.
 */
import * as path from "node:path"
import { describe, expect, it } from "vitest"

import * as Gateway from "./gateway.js"
import { claude, codex, opencode, type Ran } from "./run.js"
import { mocked, movedAccounts, noSecretIn, ranToolAt, rateLimited, shown, toolThenAnswer } from "./serveCase.js"

const { asked, folder, mock, story, through } = mocked("agents-serve-")

describe("the real CLIs through the gateway", () => {
  it("claude -p: a rate-limited key moves accounts, then to the OpenAI place, runs its tool there; --resume stays there", async () => {
    const cwd = folder("claude")
    const caller = "sk-ant-api03-callerCLAUDEsecretsecret0009"
    await through({
      chains: [["anthropic/claude-sonnet-4-5", "openai/gpt-4.1"]],
      aliases: { "claude-sonnet-4-5": "anthropic/claude-sonnet-4-5" }
    }, async (gateway) => {
      mock().script([
        ...rateLimited("anthropic", caller),
        ...toolThenAnswer("chat", "gpt-4.1", { name: "Read", input: { file_path: path.join(cwd, "notes.txt") } })
      ])
      const first = await claude("When is the meeting? Read notes.txt.", { cwd, baseUrl: gateway.url, key: caller })
      story("claude -p", caller)
      const result = first.events.find((event) => event.type === "result")
      expect(result?.is_error, shown(first)).toBe(false)
      expect(result?.result).toContain("noon")
      const turn = asked(0)
      // the caller's own key first, then the gateway's other account: both refused, then the other wire
      movedAccounts(turn, "anthropic", caller, Gateway.secrets.ANTHROPIC_KEY_WORK)
      // the tool call answered at the OpenAI place, then its result sent there, in the same conversation
      const chat = ranToolAt(turn, "chat", "gpt-4.1")
      expect(turn.indexOf(chat[0]!)).toBeGreaterThan(turn.map((request) => request.route).lastIndexOf("anthropic"))
      expect(gateway.lines[0]).toMatchObject({ status: 200, place: "openai/gpt-4.1" })

      const session = first.events.find((event) => event.type === "system")?.session_id
      expect(typeof session).toBe("string")
      const before = mock().requests().total
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
    })
  })

  it("codex exec: a rate-limited key moves accounts, then to the Anthropic place, runs its tool there; exec resume stays there", async () => {
    const cwd = folder("codex")
    const caller = "sk-proj-callerCODEXsecretsecretsecret0011"
    await through({
      chains: [["openai/gpt-5.5", "anthropic/claude-opus-4-1"]],
      aliases: { "gpt-5.5": "openai/gpt-5.5" }
    }, async (gateway) => {
      mock().script([
        ...rateLimited("chat", caller),
        ...toolThenAnswer("anthropic", "claude-opus-4-1", { name: "exec_command", input: { cmd: "cat notes.txt" } })
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
      movedAccounts(turn, "chat", caller, Gateway.secrets.OPENAI_KEY_WORK)
      // the shell's output went back as a tool_result at the Anthropic place
      ranToolAt(turn, "anthropic", "claude-opus-4-1")

      const thread = first.events.find((event) => event.type === "thread.started")?.thread_id
      expect(typeof thread).toBe("string")
      const before = mock().requests().total
      const next = await codex("And where?", { cwd, baseUrl: `${gateway.url}/v1`, key: caller, resume: String(thread) })
      expect(next.events.some((event) => event.type === "turn.completed"), shown(next)).toBe(true)
      expect(answer(next)).toContain("room 4")
      expect(asked(before).map((request) => request.route)).toEqual(["anthropic"])
      noSecretIn(first.out + first.err + next.out + next.err + JSON.stringify(gateway.lines), caller)
    })
  })

  it("opencode run through Chat Completions: a rate-limited key moves accounts, then to the Anthropic place, runs its tool there; --session stays there", async () => {
    const cwd = folder("opencode")
    const caller = "sk-proj-callerOPENCODEsecretsecret0013"
    await through({
      chains: [["openai/mock-model", "anthropic/claude-haiku-4-5"]],
      aliases: { "mock-model": "openai/mock-model", "mock-small": "openai/mock-small" }
    }, async (gateway) => {
      mock().script([
        ...rateLimited("chat", caller, "mock-model"),
        { route: "chat", model: "mock-small", fault: "answer", text: "Meeting time" },
        ...toolThenAnswer("anthropic", "claude-haiku-4-5", {
          name: "read",
          input: { filePath: path.join(cwd, "notes.txt") }
        })
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
      movedAccounts(turn, "chat", caller, Gateway.secrets.OPENAI_KEY_WORK)
      ranToolAt(turn, "anthropic", "claude-haiku-4-5")

      const session = first.events.find((event) => typeof event.sessionID === "string")?.sessionID
      expect(typeof session).toBe("string")
      const before = mock().requests().total
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
    })
  })
})
