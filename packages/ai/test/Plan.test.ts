import { describe, expect, it } from "@effect/vitest"
import { Effect, ExecutionPlan, Layer, Stream } from "effect"
import { AiError, LanguageModel } from "effect/ai"

import { FallbackAi } from "../src/index.js"

/** An in-process model: it answers with its name, or fails as scripted; builds and calls are counted. */
const scripted = (name: string, log: Array<string>, fails: () => boolean) =>
  Layer.effect(
    LanguageModel.LanguageModel,
    Effect.suspend(() => {
      log.push(`build ${name}`)
      return LanguageModel.make({
        generateText: () =>
          Effect.suspend(() => {
            log.push(`call ${name}`)
            return fails()
              ? Effect.fail(
                AiError.make({
                  module: name,
                  method: "generateText",
                  reason: AiError.reasonFromHttpStatus({
                    status: 500,
                    http: {
                      response: { status: 500, headers: {} },
                      body:
                        "{\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"Internal server error\"}}"
                    }
                  })
                })
              )
              : Effect.succeed([
                { type: "text", text: `answered by ${name}` },
                { type: "finish", reason: "stop", usage: { inputTokens: { total: 1 }, outputTokens: { total: 1 } } }
              ])
          }),
        streamText: () => Stream.die("not streamed here")
      })
    })
  )

describe("FallbackAi.fromExecutionPlan: a plan's steps as a chain of places", () => {
  it.effect("the same plan: ExecutionPlan rebuilds a step's layer on every attempt; the chain builds each once and holds it", () =>
    Effect.gen(function*() {
      const viaPlan: Array<string> = []
      const viaChain: Array<string> = []
      const planOf = (log: Array<string>) =>
        ExecutionPlan.make(
          { provide: scripted("primary", log, () => true), attempts: 2 },
          { provide: scripted("backup", log, () => false) }
        )
      const program = Effect.map(LanguageModel.generateText({ prompt: "hello" }), (response) => response.text)

      const planned = planOf(viaPlan)
      const before = [
        yield* Effect.withExecutionPlan(program, planned),
        yield* Effect.withExecutionPlan(program, planned)
      ]

      const after = yield* Effect.gen(function*() {
        return [yield* program, yield* program]
      }).pipe(
        Effect.provide(FallbackAi.fromExecutionPlan(planOf(viaChain), ["primary/m", "backup/m"]))
      )
      expect(before).toEqual(["answered by backup", "answered by backup"])
      expect(after).toEqual(before)
      expect(viaPlan).toEqual([
        "build primary",
        "call primary",
        "build primary",
        "call primary",
        "build backup",
        "call backup",
        "build primary",
        "call primary",
        "build primary",
        "call primary",
        "build backup",
        "call backup"
      ])
      // The chain: the primary's two attempts on one build, the backup built once, and the second
      // call goes straight to where the first was answered (an agent that moved stays moved).
      expect(viaChain).toEqual([
        "build primary",
        "call primary",
        "call primary",
        "build backup",
        "call backup",
        "call backup"
      ])
    }))

  it.effect("places that do not name every step are refused with a message that says so", () =>
    Effect.gen(function*() {
      const plan = ExecutionPlan.make({ provide: scripted("a", [], () => false) }, {
        provide: scripted("b", [], () => false)
      })
      const error = yield* Layer.build(FallbackAi.fromExecutionPlan(plan, ["a/m"])).pipe(Effect.scoped, Effect.flip)
      expect(error._tag).toBe("PlanMismatch")
      expect(error.message).toBe(
        "the plan has 2 steps but 1 places were given to name them; give one place per step, in order"
      )
    }))
})
