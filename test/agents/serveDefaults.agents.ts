/**
 * The real agent CLIs as a newcomer points them at the gateway (`fallback serve`) over the mock
 * upstream: at their default models (no `--model` / `-m`), which only the `"*"` alias routes. What
 * the mock was asked and the gateway logged proves where each turn went; nothing is bounded by the clock.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"

import * as Defaults from "./defaults.js"
import * as Gateway from "./gateway.js"
import { logged, mocked, noSecretIn, rateLimited, shown, toolThenAnswer } from "./serveCase.js"

const { asked, folder, mock, story, through } = mocked("agents-serve-defaults-")

describe("the real CLIs through the gateway at their default models (no --model / -m), routed by the \"*\" alias", () => {
  it("claude -p: its default model goes to the Anthropic start place; a rate-limited key moves accounts, then to the OpenAI place", async () => {
    const cwd = folder("claude-default")
    const caller = "sk-ant-api03-callerCLAUDEdefaultsecret0015"
    await through({
      chains: [["anthropic/claude-sonnet-4-5", "openai/gpt-4.1"]],
      aliases: { "*": "anthropic/claude-sonnet-4-5" }
    }, async (gateway) => {
      mock().script([
        ...rateLimited("anthropic", caller),
        ...toolThenAnswer("chat", "gpt-4.1", { name: "Read", input: { file_path: path.join(cwd, "notes.txt") } })
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
    })
  })

  it("codex exec, built-in provider by openai_base_url: its default model goes to an Anthropic place, which runs codex's exec tool", async () => {
    const cwd = folder("codex-default")
    const caller = "sk-proj-callerCODEXdefaultsecretsecret0017"
    await through({
      chains: [],
      aliases: { "*": "anthropic/claude-opus-4-1" }
    }, async (gateway) => {
      // codex's code-mode `exec` takes JavaScript as free text; the place sees it as a function of { input }
      const script =
        `const r = await tools.exec_command({ cmd: "echo made-through-the-gateway > proof.txt && cat proof.txt" });\ntext(r.output);`
      mock().script(
        toolThenAnswer("anthropic", "claude-opus-4-1", { name: "exec", input: { input: script } }, "proof.txt is made.")
      )
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
    })
  })
})
