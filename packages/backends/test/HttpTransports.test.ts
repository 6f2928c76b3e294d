/**
 * The two transports side by side: a figure printed, not asserted (the bench owns the targets).
 */
import { describe, expect, it } from "@effect/vitest"
import * as Backend from "@fallback/core/Backend"
import * as Place from "@fallback/core/Place"
import * as Settings from "@fallback/core/Settings"
import { MockProvider } from "@fallback/testkit"
import { Effect, Option } from "effect"
import * as HttpProvider from "../src/HttpProvider.js"
import * as OpenAiCompatible from "../src/OpenAiCompatible.js"
import { transports } from "./transports.js"

const prompt: Backend.Prompt = { text: "hello", history: [] }

describe("the two transports side by side", () => {
  it.live("each answers 400 replies at concurrency 20; the figure of each is printed", () =>
    Effect.gen(function*() {
      const mock = yield* MockProvider.make({ text: "hi" })
      const figures: Array<string> = []
      for (const transport of transports) {
        const answered = yield* Effect.gen(function*() {
          const backend = yield* HttpProvider.make(
            OpenAiCompatible.provider({ name: "local", baseUrl: `${mock.url}/v1` })
          )
          const session = yield* backend.open(
            Place.Place.make({ cli: "local", model: "m" }),
            Option.none(),
            Settings.plain,
            {}
          )
          const once = session.reply!(prompt, { by: Infinity, whole: Infinity, deadline: Infinity })
          yield* Effect.forEach(Array.from({ length: 40 }), () => once, { concurrency: 20 })
          const started = performance.now()
          const replies = yield* Effect.forEach(Array.from({ length: 400 }), () => once, { concurrency: 20 })
          figures.push(`${transport.name}: ${Math.round(400 / ((performance.now() - started) / 1000))} replies/s`)
          return replies.map(Backend.textOf)
        }).pipe(Effect.provide(transport.layer))
        expect(new Set(answered)).toEqual(new Set(["hi"]))
      }
      console.log(`HTTP provider transports, one run: ${figures.join("; ")}`)
    }), 60_000)
})
