/**
 * Where a chain's call is answered, known before its content: the response-metadata part a
 * streamed answer commits with says the answering place (as the finish part does), so a gateway
 * can name it in its headers before it writes a byte; a whole answer's says it too.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { OpenAiCompatible } from "@fallback/backends"
import { Effect, Layer, Option, Stream } from "effect"
import { LanguageModel, type Response } from "effect/ai"

import { FallbackAi } from "../src/index.js"
import { anthropic, mocked, notices, openai, withKeys, world } from "./world.js"

const chain = (url: string) =>
  FallbackAi.chain(["anthropic/claude-x", "openai/gpt-x"], [anthropic(url), openai(url)], {
    options: { firstByte: Option.none() }
  }).pipe(Layer.provide(Layer.merge(NodeHttpClient.layerUndici, notices)))

const noteOf = (part: Response.AnyPart | undefined) =>
  part?.type === "response-metadata" || part?.type === "finish" ? part.metadata.fallback : undefined

const moved = { place: "openai/gpt-x", from: "anthropic/claude-x", moved: true, model: "gpt-x" }

describe("FallbackAi: the response-metadata part says where the answer is answered", () => {
  it.live("streamed, after a move: the one metadata part names the place, before any content", () =>
    Effect.gen(function*() {
      const mock = yield* mocked([{ fault: "model-not-found", route: "anthropic" }], { text: "from openai" })
      const parts = yield* LanguageModel.streamText({ prompt: "hello" }).pipe(
        Stream.runCollect,
        Effect.provide(chain(mock.url)),
        withKeys
      )
      const metadata = parts.filter((part) => part.type === "response-metadata")
      expect(metadata).toHaveLength(1)
      expect(noteOf(metadata[0])).toEqual(moved)
      expect(parts.findIndex((part) => part.type === "response-metadata")).toBeLessThan(
        parts.findIndex((part) => part.type === "text-delta")
      )
      expect(noteOf(parts.find((part) => part.type === "finish"))).toEqual(moved)
    }))

  it.live("streamed, where it started: moved false", () =>
    Effect.gen(function*() {
      const mock = yield* mocked([])
      const parts = yield* LanguageModel.streamText({ prompt: "hello" }).pipe(
        Stream.runCollect,
        Effect.provide(chain(mock.url)),
        withKeys
      )
      expect(noteOf(parts.find((part) => part.type === "response-metadata"))).toEqual({
        place: "anthropic/claude-x",
        from: "anthropic/claude-x",
        moved: false,
        model: "claude-x"
      })
    }))

  it.live("whole: the response-metadata part carries the finish part's note", () =>
    Effect.gen(function*() {
      const mock = yield* mocked([{ fault: "model-not-found", route: "anthropic" }])
      const response = yield* LanguageModel.generateText({ prompt: "hello" }).pipe(
        Effect.provide(chain(mock.url)),
        withKeys
      )
      expect(noteOf(response.content.find((part) => part.type === "response-metadata"))).toEqual(moved)
      expect(noteOf(response.content.find((part) => part.type === "finish"))).toEqual(moved)
    }))

  it.live("a place that speaks text only: a metadata part is made for it, before its text", () =>
    Effect.gen(function*() {
      const mock = yield* mocked([{ fault: "model-not-found", route: "anthropic" }], { text: "answered locally" })
      const places = ["anthropic/claude-x", "local/qwen3:8b"]
      const local = OpenAiCompatible.make({ name: "local", baseUrl: `${mock.url}/v1` })
      const parts = yield* LanguageModel.streamText({ prompt: "hello" }).pipe(
        Stream.runCollect,
        Effect.provide(
          FallbackAi.layer(places[0]!, { options: { firstByte: Option.none() } }).pipe(
            Layer.provide(world(mock.url, places, [local]))
          )
        ),
        withKeys
      )
      expect(parts[0]!.type).toBe("response-metadata")
      expect(noteOf(parts[0])).toMatchObject({ place: "local/qwen3:8b", from: "anthropic/claude-x", moved: true })
      expect(parts.filter((part) => part.type === "response-metadata")).toHaveLength(1)
    }))
})
