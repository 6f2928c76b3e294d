import { describe, expect, it } from "@effect/vitest"
import { ConfigFile } from "@fallback/core"
import * as Place from "@fallback/core/Place"
import { Effect } from "effect"
import * as Result from "effect/Result"

import { placeOf, type Routes } from "../../src/internal/gateway/route.js"
import { anthropicClient, openaiClient, providers, served } from "./world.js"

const routes = (aliases: Record<string, string>): Routes => ({ providers: providers("http://127.0.0.1:1"), aliases })

const routed = (model: string, aliases: Record<string, string>) =>
  Result.match(placeOf(model, routes(aliases)), {
    onSuccess: (place) => Place.format(place),
    onFailure: (failed) => `${failed.status} ${failed.message}`
  })

describe("route: the place a model name is sent to", () => {
  const aliases = {
    "*": "anthropic/claude-default",
    "gpt-x": "anthropic/claude-aliased",
    "openai/gpt-x": "anthropic/claude-aliased-place"
  }

  it("in order: an alias, a place, a name a provider lists, then the \"*\" alias, then 404", () => {
    // an alias first, even over a place or a listed name of that spelling
    expect(routed("gpt-x", aliases)).toBe("anthropic/claude-aliased")
    expect(routed("openai/gpt-x", aliases)).toBe("anthropic/claude-aliased-place")
    // a place at one of the providers, listed or not
    expect(routed("openai/gpt-unlisted", aliases)).toBe("openai/gpt-unlisted")
    // a name a provider lists
    expect(routed("claude-x", aliases)).toBe("anthropic/claude-x")
    // anything else: the catch-all (a client's default model, a place at a provider the gateway has not)
    expect(routed("claude-opus-5-5", aliases)).toBe("anthropic/claude-default")
    expect(routed("gpt-6.2-sol", aliases)).toBe("anthropic/claude-default")
    expect(routed("nowhere/model", aliases)).toBe("anthropic/claude-default")
    expect(routed("constructor", {})).toMatch(/^404 /)
  })

  it("without \"*\", an unknown name is a 404 naming the nearest, never \"*\" itself", () => {
    expect(routed("claude-y", {})).toBe(
      "404 the model \"claude-y\" is not an alias or a place this gateway routes (places are PROVIDER/MODEL, its " +
        "providers anthropic, openai); did you mean \"claude-x\"?"
    )
    expect(routed("*", {})).toMatch(/^404 /)
  })

  it("a \"*\" naming no place is the gateway's fault (500), saying which alias", () => {
    expect(routed("claude-opus-5-5", { "*": "claude" })).toMatch(
      /^500 the alias "\*" names "claude", which is not a place/
    )
  })

  it("a config file takes \"*\" as an alias", () => {
    const file = "/home/u/.config/fallback/config.json"
    const json = { providers: providers("http://127.0.0.1:1"), aliases: { "*": "anthropic/claude-x" } }
    const decoded = Result.getOrThrow(ConfigFile.decode(file, JSON.stringify(json), ConfigFile.builtinClis))
    expect(decoded.aliases).toEqual({ "*": "anthropic/claude-x" })
  })
})

describe("route: a client at its default model", () => {
  it.live("Claude Code's claude-opus-5-5 and Codex's gpt-6.2-sol, named by no alias, answered at the \"*\" place", () =>
    Effect.gen(function*() {
      const { lines, mock, url } = yield* served({ aliases: { "*": "openai/gpt-x" }, passThrough: false })
      const message = yield* Effect.promise(() =>
        anthropicClient(url).messages.create({
          model: "claude-opus-5-5",
          max_tokens: 64,
          messages: [{ role: "user", content: "hi" }]
        })
      )
      expect(message.content).toMatchObject([{ type: "text", text: "the answer" }])
      const answer = yield* Effect.promise(() =>
        openaiClient(url).responses.create({ model: "gpt-6.2-sol", input: "hi", store: false })
      )
      expect(answer.output_text).toBe("the answer")
      expect((yield* mock.requests).log.map((request) => [request.route, request.model])).toEqual([
        ["chat", "gpt-x"],
        ["chat", "gpt-x"]
      ])
      expect(lines.map((line) => [line.status, line.model, line.place])).toEqual([
        [200, "claude-opus-5-5", "openai/gpt-x"],
        [200, "gpt-6.2-sol", "openai/gpt-x"]
      ])
    }))
})
