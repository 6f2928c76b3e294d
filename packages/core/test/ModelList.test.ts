import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Result } from "effect"
import * as Arbitrary from "effect/Arbitrary"
import { ModelList, Place } from "../src/index.js"
import * as fc from "./fixtures/arbitrary.js"

const catalogue = [
  "claude-sonnet-5",
  "claude-opus-5",
  "gpt-5",
  "gpt-5.6-sol",
  "gemini-3-pro",
  "qwen3:8b",
  "deepseek-v4-flash"
]

const fromEnv = (env: Record<string, string>) =>
  ModelList.fromEnv.pipe(
    Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnv({ env })),
    Effect.provide(ModelList.Catalogue.layer(catalogue))
  )

const spaced = (names: ReadonlyArray<string>, pads: ReadonlyArray<string>) =>
  names.map((name, i) => `${pads[i % pads.length]}${name}${pads[(i + 1) % pads.length]}`).join(",")

const distinct = fc.uniqueArray(fc.constantFrom(...catalogue), {
  minLength: 1,
  maxLength: catalogue.length
})
const pads = fc.array(fc.constantFrom("", " ", "  ", "\t"), { minLength: 1, maxLength: 4 })

describe("ModelList", () => {
  it.effect("reads the list in order", () =>
    Effect.gen(function*() {
      expect(yield* fromEnv({ LLM_FALLBACK_MODELS: "claude-sonnet-5,gpt-5" })).toEqual(["claude-sonnet-5", "gpt-5"])
    }))

  it.effect("unset or empty is no failover", () =>
    Effect.gen(function*() {
      expect(yield* fromEnv({})).toEqual([])
      expect(yield* fromEnv({ LLM_FALLBACK_MODELS: "" })).toEqual([])
      expect(yield* fromEnv({ LLM_FALLBACK_MODELS: "  " })).toEqual([])
    }))

  it.effect("a typo fails start with the nearest valid names", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(fromEnv({ LLM_FALLBACK_MODELS: "claude-sonet-5,gpt-5" }))
      expect(error.message).toBe(
        "LLM_FALLBACK_MODELS names \"claude-sonet-5\", which no configured backend serves (did you mean claude-sonnet-5 or claude-opus-5?)"
      )
      const far = yield* Effect.flip(fromEnv({ LLM_FALLBACK_MODELS: "llama-4" }))
      expect(far.message).toBe("LLM_FALLBACK_MODELS names \"llama-4\", which no configured backend serves")
    }))

  it.effect("a model listed twice is refused with the reason", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(fromEnv({ LLM_FALLBACK_MODELS: "gpt-5, claude-sonnet-5, gpt-5" }))
      expect(error.message).toBe(
        "LLM_FALLBACK_MODELS lists \"gpt-5\" twice; one outage would count twice against it and trip its breaker at half the threshold"
      )
    }))

  it.effect("an empty name is refused, not skipped", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(fromEnv({ LLM_FALLBACK_MODELS: "gpt-5,,claude-sonnet-5" }))
      expect(error.message).toBe(
        "LLM_FALLBACK_MODELS has an empty name at position 2 (two commas in a row, or one at an end)"
      )
    }))

  it.prop(
    "any list of distinct served names reads back in order, whatever the spaces",
    [distinct, pads],
    ([names, padding]) => {
      expect(ModelList.parse(spaced(names, padding), catalogue)).toEqual(Result.succeed(names))
    }
  )

  it.prop(
    "a list with a name twice is refused naming that name",
    [distinct, fc.nat(), fc.nat()],
    ([names, from, to]) => {
      const twice = names[from % names.length]!
      const listed = [...names]
      listed.splice(to % (listed.length + 1), 0, twice)
      const error = Result.flip(ModelList.parse(listed.join(","), catalogue)).pipe(Result.getOrThrow)
      expect(error._tag).toBe("RepeatedModel")
      expect(error.message).toContain(`"${twice}"`)
    }
  )

  it.prop(
    "a list with a name no backend serves is refused naming it",
    [
      distinct,
      fc.word("abcdefghijklmnopqrstuvwxyz", "abcdefghijklmnopqrstuvwxyz0123456789.-", 2, 12).pipe(
        Arbitrary.filter((stranger) => !catalogue.includes(stranger))
      ),
      fc.nat()
    ],
    ([names, stranger, at]) => {
      const listed = [...names]
      listed.splice(at % (listed.length + 1), 0, stranger)
      const error = Result.flip(ModelList.parse(listed.join(","), catalogue)).pipe(Result.getOrThrow)
      expect(error).toMatchObject({ _tag: "UnknownModel", name: stranger })
    }
  )

  it.prop(
    "a place's model is taken when served, else refused naming it, with only served names as the nearest",
    [fc.oneof(
      fc.constantFrom(...catalogue),
      fc.word("abcdefghijklmnopqrstuvwxyz", "abcdefghijklmnopqrstuvwxyz0123456789.:-", 1, 14)
    )],
    ([model]) => {
      const place = new Place.Place({ cli: "local", model })
      const checked = ModelList.checkPlace(place, catalogue, "providers.local.models")
      if (catalogue.includes(model)) {
        expect(Result.getOrThrow(checked)).toBe(place)
      } else {
        const error = Result.flip(checked).pipe(Result.getOrThrow)
        expect(error.message).toContain(`local/${model} names the model "${model}", which local does not serve`)
        expect(error.message).toContain("add it to providers.local.models")
        expect(catalogue).toEqual(expect.arrayContaining([...error.nearest]))
      }
    }
  )

  it("a model under a provider is hinted for the bare name (opencode writes PROVIDER/MODEL)", () => {
    const served = ["anthropic/claude-sonnet-4-5", "openai/gpt-5.5"]
    const place = new Place.Place({ cli: "opencode", model: "claude-sonnet-4-5" })
    const error = Result.flip(ModelList.checkPlace(place, served, "clis.opencode.models")).pipe(Result.getOrThrow)
    expect(error.nearest).toEqual(["anthropic/claude-sonnet-4-5"])
  })
})
