/**
 * The fuzz suite (issue 12): places, config files (generated from the schema, then mutated),
 * durations and tries. Nothing throws, no message is over a bound or moves a terminal, and every
 * document that reads is written back as text that reads as the same document. Seeded (FUZZ_SEED
 * replays a run) and bounded by counts.
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, Duration, Effect, FileSystem, Layer, Result, Schema } from "effect"
import { ConfigFile, Place, Policy, Steps } from "../src/index.js"
import * as fc from "./fixtures/arbitrary.js"

const seed = Number(process.env.FUZZ_SEED ?? 12)
const runs = (numRuns: number) => ({ arbitrary: { runs: numRuns, seed } })

/** The longest a message may be, and what it may not hold. */
const longest = 1500
const unprintable = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/

const readable = (message: string) => {
  expect(message.length, message.slice(0, 200)).toBeLessThanOrEqual(longest)
  expect(message).not.toMatch(unprintable)
}

const hostileText = fc.oneof(
  fc.string({ maxLength: 80 }),
  fc.fullUnicodeString({ maxLength: 40 }),
  fc.constantFrom(
    "-",
    "--yolo",
    "\u001b]8;;http://x\u0007",
    "\u0000",
    "\u202e",
    "__proto__",
    "1e999",
    "x".repeat(100_000)
  )
)

const validPlace = Arbitrary.schema(Place.Place).pipe(Arbitrary.map(Place.format))

const mutatedPlace = fc.tuple(validPlace, fc.nat(60), hostileText).pipe(
  Arbitrary.map(([place, at, junk]) =>
    place.slice(0, at % (place.length + 1)) + junk + place.slice(at % (place.length + 1))
  )
)

describe("fuzz: places", () => {
  it.prop(
    "a place reads, or is refused with a short, printable message",
    [fc.oneof(hostileText, mutatedPlace)],
    ([input]) => {
      const parsed = Place.parse(input)
      if (Result.isFailure(parsed)) return readable(parsed.failure.message)
      expect(Place.format(parsed.success)).toBe(input)
      expect(parsed.success.model.startsWith("-")).toBe(false)
    },
    runs(400)
  )
})

describe("fuzz: tries and durations", () => {
  const number = fc.oneof(
    fc.integer(),
    fc.double(),
    fc.constantFrom(Number.NaN, Infinity, -Infinity, 1e308, 2 ** 53, Policy.mostTries, Policy.mostTries + 1, -0)
  )
  it.prop("retrying is made or refused, and what is made is written and read back the same", [
    number,
    fc.constantFrom(...Policy.names),
    number
  ], ([tries, policy, seconds]) => {
    const made = Policy.retrying(
      tries,
      policy,
      Number.isNaN(seconds) ? Duration.infinity : Duration.millis(seconds * 1000)
    )
    if (Result.isFailure(made)) return readable(made.failure.message)
    const text = JSON.stringify(Schema.encodeSync(Policy.Retrying)(made.success))
    expect(Schema.decodeUnknownSync(Policy.Retrying)(JSON.parse(text))).toEqual(made.success)
    expect(Policy.ladder(policy, tries).length).toBeLessThanOrEqual(Policy.mostTries)
  }, runs(300))
})

const clis = ConfigFile.builtinClis

/** A step: where the place's turns go, and its retrying within the bounds and past them. */
const step = fc.record({
  to: fc.option(Arbitrary.schema(Place.Place), { nil: undefined }),
  retrying: fc.option(
    fc.record({
      tries: fc.nat(Policy.mostTries + 5),
      policy: fc.constantFrom(...Policy.names),
      timeout: fc.oneof(fc.nat(90_000), fc.double({ min: 0, max: 1e6, noNaN: true })).pipe(
        Arbitrary.map((seconds) => Duration.seconds(seconds))
      )
    }).pipe(
      Arbitrary.map((fields) => Object.assign(Object.create(Policy.Retrying.prototype), fields) as Policy.Retrying)
    ),
    { nil: undefined }
  )
}).pipe(Arbitrary.map((fields) => fc.withoutUndefined(fields)))

/** Documents drawn from the schema's own arbitraries (accounts, providers, places) and steps. */
const document = fc.record({
  steps: fc.dictionary(validPlace, step, { maxKeys: 4 }),
  accounts: fc.dictionary(
    fc.constantFrom(...clis),
    fc.uniqueArray(Arbitrary.schema(ConfigFile.Account), { maxLength: 3, selector: (account) => account.name }),
    { maxKeys: 3 }
  ),
  providers: fc.dictionary(fc.constantFrom("local", "api", "mine"), Arbitrary.schema(ConfigFile.Provider), {
    maxKeys: 2
  }),
  clis: fc.constant({})
}).pipe(Arbitrary.map((parts) => ConfigFile.Document.make(parts as ConfigFile.Document, { disableChecks: true })))

const mutation = fc.oneof(
  fc.record({ kind: fc.constant("cut" as const), at: fc.nat(), length: fc.nat(40) }),
  fc.record({ kind: fc.constant("insert" as const), at: fc.nat(), text: hostileText }),
  fc.record({
    kind: fc.constant("number" as const),
    value: fc.constantFrom("1e999", "-1", "100000000", "0.5", "1e308", "null")
  }),
  fc.record({ kind: fc.constant("twice" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("proto" as const) })
)

type Mutation = typeof mutation extends Arbitrary.Arbitrary<infer M> ? M : never

const mutate = (text: string, change: Mutation): string => {
  switch (change.kind) {
    case "cut": {
      const at = change.at % (text.length + 1)
      return text.slice(0, at) + text.slice(at + change.length)
    }
    case "insert": {
      const at = change.at % (text.length + 1)
      return text.slice(0, at) + change.text + text.slice(at)
    }
    case "number":
      return text.replace(/(?<=: )\d+(\.\d+)?/, change.value)
    case "twice": {
      const lines = text.split("\n")
      const keyed = lines.map((line, i) => [line, i] as const).filter(([line]) => /^\s+"[^"]+": /.test(line))
      if (keyed.length === 0) return text
      const [line, i] = keyed[change.at % keyed.length]!
      const copy = line.endsWith(",") ? line : `${line},`
      return [...lines.slice(0, i), copy, ...lines.slice(i)].join("\n")
    }
    case "proto":
      return text.replace("{", "{\"__proto__\": {}, ")
  }
}

const decode = (text: string) => ConfigFile.decode("config.json", text, clis)

describe("fuzz: config files", () => {
  it.prop("a document from the schema is written and read back as itself", [document], ([drawn]) => {
    const checked = ConfigFile.check(drawn, { known: clis })
    if (Result.isFailure(checked)) return readable(checked.failure.message)
    const written = Result.try(() => ConfigFile.encode(drawn))
    // a document holding what the file refuses (tries past the most) is never written
    if (Result.isFailure(written)) return
    const text = written.success
    const read = decode(text)
    if (Result.isFailure(read)) return readable(read.failure.message)
    expect(ConfigFile.encode(read.success)).toBe(text)
  }, runs(150))

  it.prop("a mutated file reads as a document that writes back the same, or is refused readably", [
    document,
    fc.array(mutation, { minLength: 1, maxLength: 3 })
  ], ([drawn, changes]) => {
    const written = Result.try(() => ConfigFile.encode(drawn))
    if (Result.isFailure(written)) return
    const text = changes.reduce(mutate, written.success)
    const read = decode(text)
    if (Result.isFailure(read)) return readable(read.failure.message)
    const again = ConfigFile.encode(read.success)
    expect(Result.map(decode(again), ConfigFile.encode)).toEqual(Result.succeed(again))
  }, runs(400))

  it.effect(
    "a change to a mutated file on disk is never a write that does not read back",
    () =>
      Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        const dir = yield* fs.makeTempDirectoryScoped({ prefix: "fallback-fuzz-" })
        const samples = fc.sample(fc.tuple(document, fc.array(mutation, { maxLength: 2 })), { numRuns: 40, seed })
        for (const [i, [drawn, changes]] of samples.entries()) {
          const file = `${dir}/config-${i}.json`
          const written = Result.try(() => ConfigFile.encode(drawn))
          if (Result.isFailure(written)) continue
          const before = changes.reduce(mutate, written.success)
          yield* fs.writeFileString(file, before)
          const edit = Effect.flatMap(Steps.Steps, (steps) => steps.points("claude/fuzz-a", "codex/fuzz-b")).pipe(
            Effect.provide(Steps.Steps.layer.pipe(Layer.provide(ConfigFile.Store.layerFile(file))))
          )
          const done = yield* Effect.result(edit)
          const after = yield* fs.readFileString(file)
          if (Result.isFailure(done)) {
            readable(done.failure.message)
            expect(after).toBe(before)
          } else {
            expect(Result.isSuccess(decode(after))).toBe(true)
          }
        }
      }).pipe(Effect.scoped, Effect.provide(Layer.merge(NodeFileSystem.layer, NodePath.layer))),
    60_000
  )
})
