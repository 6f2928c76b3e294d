/**
 * Inputs that hung or poisoned the file (issue 12 #3–#10): each test failed before its fix.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Either, Layer, Schema } from "effect"
import { ConfigFile, Policy, Steps } from "../src/index.js"

const Node = Layer.merge(NodeFileSystem.layer, NodePath.layer)

const folder = Effect.flatMap(FileSystem.FileSystem, (fs) => fs.makeTempDirectoryScoped({ prefix: "fallback-hard-" }))

const steps = (file: string) => Steps.Steps.layer.pipe(Layer.provide(ConfigFile.Store.layerFile(file)))

const decoded = (text: string) => ConfigFile.decode("config.json", text, ConfigFile.builtinClis)
const refusal = (text: string) => Either.flip(decoded(text)).pipe(Either.getOrThrow).message

describe("tries and timeouts are bounded (#3, #4)", () => {
  it("refuses tries over the documented most, and computes no ladder longer than it", () => {
    expect(Either.isLeft(Policy.retrying(Policy.mostTries + 1))).toBe(true)
    expect(Either.isRight(Policy.retrying(Policy.mostTries))).toBe(true)
    expect(Policy.ladder("linear", 100_000_000).length).toBe(Policy.mostTries)
    expect(refusal(`{"steps":{"claude/a":{"retrying":{"tries":100000000}}}}`)).toContain(
      `from 0 to ${Policy.mostTries}`
    )
  })

  it.each([Duration.infinity, Duration.days(400)])("refuses a timeout of %s from a program", (timeout) => {
    expect(Either.isLeft(Policy.retrying(1, "constant", timeout))).toBe(true)
    expect(() => new Policy.Retrying({ tries: 1, timeout })).toThrow()
  })

  it.each(["1e999", "-1", "1e308", "\"90\""])("refuses a timeout of %s in the file", (timeout) => {
    expect(refusal(`{"steps":{"claude/a":{"retrying":{"tries":1,"timeout":${timeout}}}}}`)).toContain(
      "steps[\"claude/a\"].retrying.timeout"
    )
  })

  it.scoped("never writes a file that would not read back", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const file = `${yield* folder}/config.json`
      yield* Effect.gen(function*() {
        yield* (yield* Steps.Steps).retrying("claude/a", 1, "constant", Duration.seconds(90))
      }).pipe(Effect.provide(steps(file)))
      const before = yield* fs.readFileString(file)
      const store = yield* Effect.provide(ConfigFile.Store, ConfigFile.Store.layerFile(file))
      const poisoned = Schema.decodeUnknownSync(ConfigFile.Document)({})
      const infinite = Object.create(Policy.Retrying.prototype, {
        tries: { value: 1, enumerable: true },
        policy: { value: "constant", enumerable: true },
        timeout: { value: Duration.infinity, enumerable: true }
      }) as Policy.Retrying
      const result = yield* Effect.either(store.modify(() =>
        Either.right({
          ...poisoned,
          steps: { "claude/a": { retrying: infinite } }
        })
      ))
      expect(Either.isLeft(result)).toBe(true)
      expect(yield* fs.readFileString(file)).toBe(before)
      expect(Either.isRight(decoded(before))).toBe(true)
    }).pipe(Effect.provide(Node)))
})
