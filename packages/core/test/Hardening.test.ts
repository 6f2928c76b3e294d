/**
 * Inputs that hung or poisoned the file (issue 12 #3–#10): each test failed before its fix.
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, FileSystem, Layer, Path, Random, Result, Schema } from "effect"
import { spawnSync } from "node:child_process"
import { ConfigFile, Failure, Place, Policy, Steps } from "../src/index.js"
import { withLock } from "../src/internal/store/lock.js"

const Node = Layer.merge(NodeFileSystem.layer, NodePath.layer)

const folder = Effect.flatMap(FileSystem.FileSystem, (fs) => fs.makeTempDirectoryScoped({ prefix: "fallback-hard-" }))

const steps = (file: string) => Steps.Steps.layer.pipe(Layer.provide(ConfigFile.Store.layerFile(file)))

const decoded = (text: string) => ConfigFile.decode("config.json", text, ConfigFile.builtinClis)
const refusal = (text: string) => Result.flip(decoded(text)).pipe(Result.getOrThrow).message

describe("tries and timeouts are bounded (#3, #4)", () => {
  it("refuses tries over the documented most, and computes no ladder longer than it", () => {
    expect(Result.isFailure(Policy.retrying(Policy.mostTries + 1))).toBe(true)
    expect(Result.isSuccess(Policy.retrying(Policy.mostTries))).toBe(true)
    expect(Policy.ladder("linear", 100_000_000).length).toBe(Policy.mostTries)
    expect(refusal(`{"steps":{"claude/a":{"retrying":{"tries":100000000}}}}`)).toContain(
      `from 0 to ${Policy.mostTries}`
    )
  })

  it.each([Duration.infinity, Duration.days(400)])("refuses a timeout of %s from a program", (timeout) => {
    expect(Result.isFailure(Policy.retrying(1, "constant", timeout))).toBe(true)
    expect(() => new Policy.Retrying({ tries: 1, timeout })).toThrow()
  })

  it.each(["1e999", "-1", "1e308", "\"90\""])("refuses a timeout of %s in the file", (timeout) => {
    expect(refusal(`{"steps":{"claude/a":{"retrying":{"tries":1,"timeout":${timeout}}}}}`)).toContain(
      "steps[\"claude/a\"].retrying.timeout"
    )
  })

  it.effect("never writes a file that would not read back", () =>
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
      const result = yield* Effect.result(store.modify(() =>
        Result.succeed({
          ...poisoned,
          steps: { "claude/a": { retrying: infinite } }
        })
      ))
      expect(Result.isFailure(result)).toBe(true)
      expect(yield* fs.readFileString(file)).toBe(before)
      expect(Result.isSuccess(decoded(before))).toBe(true)
    }).pipe(Effect.provide(Node)))
})

describe("the file is refused, not silently changed (#5)", () => {
  it.each([
    [
      `{"steps":{"claude/a":{"to":"codex/b"},"claude/a":{"to":"gemini/c"}}}`,
      `at steps: the key "claude/a" is written twice`
    ],
    [`{"steps":{},"steps":{}}`, `at the top: the key "steps" is written twice`],
    [`{"__proto__":{"steps":1}}`, `at the top: the key "__proto__"`],
    [`{"accounts":{"claude":[{"name":"a","__proto__":{}}]}}`, `at accounts.claude[0]: the key "__proto__"`]
  ])("%s", (text, said) => {
    expect(refusal(text)).toContain(said)
  })

  it.effect("a file with a key written twice is not rewritten by the next change", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const file = `${yield* folder}/config.json`
      const text = `{"steps":{"claude/a":{"to":"codex/b"},"claude/a":{"to":"gemini/c"}}}`
      yield* fs.writeFileString(file, text)
      const tried = yield* Effect.result(
        Effect.flatMap(Steps.Steps, (s) => s.points("codex/x", "codex/y")).pipe(Effect.provide(steps(file)))
      )
      expect(Result.isFailure(tried)).toBe(true)
      expect(yield* fs.readFileString(file)).toBe(text)
    }).pipe(Effect.provide(Node)))

  it("refuses nesting deeper than any config", () => {
    expect(refusal(`{"steps":${"[".repeat(5000)}${"]".repeat(5000)}}`)).toContain("nested deeper")
  })
})

describe("places hold no control characters, models no leading dash, messages echo little (#6, #7)", () => {
  it.each(["claude/x\u001b]8;;http://evil\u0007y", "claude/a\u0000b", "codex/\u202egpt", "gemini/--yolo", "gemini/-m"])(
    "refuses %j",
    (input) => {
      const error = Result.flip(Place.parse(input)).pipe(Result.getOrThrow)
      expect(error.message).not.toMatch(/[\u0000-\u001f\u202e]/)
    }
  )

  it("refuses a control character anywhere in the file, saying where", () => {
    expect(refusal(`{"accounts":{"claude":[{"name":"a","configDir":"/x\\u001b[2J"}]}}`)).toContain(
      "at accounts.claude[0].configDir: holds a control character (\"\\u001b\")"
    )
    expect(refusal(`{"steps":{"claude/x\\u001b]8;;h\\u0007":{"to":"codex/b"}}}`)).not.toMatch(/[\u0000-\u001f]/)
  })

  it("cuts what it echoes of a long input", () => {
    const long = `claude/${"x ".repeat(50_000)}`
    expect(Result.flip(Place.parse(long)).pipe(Result.getOrThrow).message.length).toBeLessThan(400)
    expect(refusal(JSON.stringify({ steps: { [long]: { to: "codex/b" } } })).length).toBeLessThan(800)
    expect(Result.flip(Policy.parse("y".repeat(100_000))).pipe(Result.getOrThrow).message.length).toBeLessThan(300)
  })

  it("shows what a backend said without the escapes that would drive a terminal", () => {
    expect(Failure.said("bad \u001b]8;;http://evil\u0007link\u001b]8;;\u0007 here")).not.toMatch(/[\u0000-\u001f]/)
  })
})

/** A FileSystem whose every call waits a random few milliseconds first, to shuffle the writers' steps. */
const slowed = (fs: FileSystem.FileSystem): FileSystem.FileSystem =>
  new Proxy(fs, {
    get: (target, key) => {
      const member = target[key as keyof FileSystem.FileSystem]
      if (typeof member !== "function") return member
      return (...args: Array<unknown>) => {
        const result = (member as (...a: Array<unknown>) => unknown).apply(target, args)
        return Effect.isEffect(result)
          ? Effect.andThen(
            Effect.flatMap(Random.nextIntBetween(0, 4), (ms) => Effect.sleep(Duration.millis(ms))),
            result
          )
          : result
      }
    }
  })

const deadPid = () => spawnSync(process.execPath, ["-e", "0"]).pid!

describe("the lock (#9)", () => {
  const contend = (lockText: string, writers: number) =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const file = `${yield* folder}/config.json`
      yield* fs.writeFileString(`${file}.lock`, lockText)
      let inside = 0
      let most = 0
      let entered = 0
      const writer = withLock(slowed(fs), path, file, Duration.seconds(30), (problem) => problem)(
        Effect.gen(function*() {
          inside += 1
          entered += 1
          most = Math.max(most, inside)
          yield* Effect.sleep(Duration.millis(2))
          inside -= 1
        })
      )
      yield* Effect.all(Array.from({ length: writers }, () => writer), { concurrency: "unbounded" })
      return { most, entered, left: yield* fs.readDirectory(path.dirname(file)) }
    })

  it.live.each([
    ["a lock held by a process that is gone", () => `${deadPid()} abc123`],
    ["a lock holding garbage", () => "garbage that names no process"],
    ["an empty lock", () => ""]
  ])("%s is taken over, and never by two writers at once", ([, text]) =>
    Effect.gen(function*() {
      for (let round = 0; round < 8; round++) {
        const { entered, left, most } = yield* contend((text as () => string)(), 6)
        expect(most).toBe(1)
        expect(entered).toBe(6)
        expect(left).toEqual([])
      }
    }).pipe(Effect.scoped, Effect.provide(Node)), 60_000)

  it.live("a claim left by a writer killed while taking over is taken over too", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const file = `${yield* folder}/config.json`
      yield* fs.writeFileString(`${file}.lock`, `${deadPid()} abc`)
      yield* fs.writeFileString(`${file}.lock.claim`, `${deadPid()} def`)
      yield* withLock(fs, path, file, Duration.seconds(5), (problem) => problem)(Effect.void)
      expect(yield* fs.readDirectory(path.dirname(file))).toEqual([])
    }).pipe(Effect.scoped, Effect.provide(Node)))
})

describe("a symlinked config file (#10)", () => {
  it.effect("is written through to its target; the link stays a link", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* folder
      yield* fs.makeDirectory(`${dir}/dotfiles`)
      yield* fs.writeFileString(`${dir}/dotfiles/fallback.json`, "{}")
      yield* fs.symlink("dotfiles/fallback.json", `${dir}/config.json`)
      yield* Effect.flatMap(Steps.Steps, (s) => s.points("claude/a", "codex/b")).pipe(
        Effect.provide(steps(`${dir}/config.json`))
      )
      expect(yield* fs.readLink(`${dir}/config.json`)).toBe("dotfiles/fallback.json")
      expect(JSON.parse(yield* fs.readFileString(`${dir}/dotfiles/fallback.json`)).steps["claude/a"].to).toBe("codex/b")
    }).pipe(Effect.provide(Node)))
})
