import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { readFileSync } from "node:fs"

import { openaiClient, served } from "../gateway/world.js"

const codex = JSON.parse(
  readFileSync(
    new URL("../../../../test/fixtures/wire/openai-responses/codex-default-model.json", import.meta.url),
    "utf8"
  )
).body

const script = "const r = await tools.exec_command({ cmd: \"ls\" });\ntext(r);"

describe("Gateway: Codex's custom exec tool at an Anthropic place", () => {
  it.live("a tool_use of exec reaches the Responses client as a custom_tool_call with its input, and round-trips", () =>
    Effect.gen(function*() {
      const { mock, url } = yield* served({ passThrough: false })
      yield* mock.script([{ fault: "answer", route: "anthropic", tool: { name: "exec", input: { input: script } } }])
      const client = openaiClient(url)
      const final = yield* Effect.promise(() =>
        client.responses.stream({ ...codex, model: "anthropic/claude-x" }).finalResponse()
      )
      const called = final.output.find((item) => item.type === "custom_tool_call")
      expect(called).toMatchObject({ type: "custom_tool_call", name: "exec", input: script })
      const sent = (yield* mock.requests).log[0]!.body as { readonly tools: ReadonlyArray<any> }
      expect(sent.tools.find((t) => t.name === "exec")).toMatchObject({
        input_schema: { type: "object", properties: { input: { type: "string" } }, required: ["input"] }
      })

      // the next turn carries the call and its output back; the place is asked with the tool_use and its result
      yield* mock.script([])
      const next = yield* Effect.promise(() =>
        client.responses.stream({
          ...codex,
          model: "anthropic/claude-x",
          input: [
            ...codex.input,
            { type: "custom_tool_call", call_id: called!.call_id, name: "exec", input: script },
            { type: "custom_tool_call_output", call_id: called!.call_id, output: "a.txt" }
          ]
        }).finalResponse()
      )
      expect(next.output_text).toBe("the answer")
      const asked = (yield* mock.requests).log.at(-1)!.body as { readonly messages: ReadonlyArray<any> }
      const [use, result] = asked.messages.slice(-2)
      expect(use.content).toMatchObject([{
        type: "tool_use",
        id: called!.call_id,
        name: "exec",
        input: { input: script }
      }])
      expect(result.content).toMatchObject([{ type: "tool_result", tool_use_id: called!.call_id }])
    }))

  it.live("answered whole (stream: false), the call is a custom_tool_call too", () =>
    Effect.gen(function*() {
      const { mock, url } = yield* served({ passThrough: false })
      yield* mock.script([{ fault: "answer", route: "anthropic", tool: { name: "exec", input: { input: script } } }])
      const answer = yield* Effect.promise(() =>
        openaiClient(url).responses.create({ ...codex, model: "anthropic/claude-x", stream: false })
      )
      expect(answer.output).toMatchObject([{ type: "custom_tool_call", name: "exec", input: script }])
    }))
})
