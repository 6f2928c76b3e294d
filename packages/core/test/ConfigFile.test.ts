import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, FileSystem, Layer, Option, Path, Result, Schema } from "effect"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { Accounts, ConfigFile, Place, Steps } from "../src/index.js"

const Node = Layer.merge(NodeFileSystem.layer, NodePath.layer)

/** A fresh folder for each test, removed at its end. */
const folder = Effect.flatMap(FileSystem.FileSystem, (fs) => fs.makeTempDirectoryScoped({ prefix: "fallback-config-" }))

const inFile = (file: string) =>
  Layer.mergeAll(Steps.Steps.layer, Accounts.Accounts.layer).pipe(Layer.provide(ConfigFile.Store.layerFile(file)))

const withFile = <A, E>(file: string, effect: Effect.Effect<A, E, Steps.Steps | Accounts.Accounts>) =>
  Effect.provide(effect, inFile(file))

const file = "/home/u/.config/fallback/config.json"

const corpus: ReadonlyArray<readonly [string, string, string]> = [
  [
    "truncated JSON",
    "{\"steps\": {\"claude/a\": {\"to\": \"codex/b\"",
    `${file} is not JSON (Expected ',' or '}' after property value in JSON at position 39, line 1 column 40); nothing was written to it: mend it, or move it away to start afresh`
  ],
  [
    "not an object",
    "[]",
    `${file} is not a fallback config: at the top: a JSON object with "steps" and "accounts"`
  ],
  [
    "a target of the wrong type",
    "{\"steps\": {\"claude/a\": {\"to\": 42}}}",
    `${file} is not a fallback config: at steps["claude/a"].to: a place, written CLI[@ACCOUNT]/MODEL (e.g. claude@work/claude-opus-5)`
  ],
  [
    "tries as words",
    "{\"steps\": {\"claude/a\": {\"retrying\": {\"tries\": \"three\"}}}}",
    `${file} is not a fallback config: at steps["claude/a"].retrying.tries: a whole number of goes beyond the first, from 0 to 100`
  ],
  [
    "an unknown policy",
    "{\"steps\": {\"claude/a\": {\"retrying\": {\"tries\": 3, \"policy\": \"jitter\"}}}}",
    `${file} is not a fallback config: at steps["claude/a"].retrying.policy: a policy is one of: none, constant, linear, exponential, exponential-jitter, fibonacci`
  ],
  [
    "a negative timeout",
    "{\"steps\": {\"claude/a\": {\"retrying\": {\"tries\": 1, \"timeout\": -5}}}}",
    `${file} is not a fallback config: at steps["claude/a"].retrying.timeout: a number of seconds from 0 to 86400`
  ],
  [
    "an unknown key at the top",
    "{\"steps\": {}, \"fallbacks\": {}}",
    `${file} is not a fallback config: at fallbacks: this key is not one a fallback config has`
  ],
  [
    "an unknown key in a step",
    "{\"steps\": {\"claude/a\": {\"to\": \"codex/b\", \"tries\": 3}}}",
    `${file} is not a fallback config: at steps["claude/a"].tries: this key is not one a fallback config has`
  ],
  [
    "a key that is not a place",
    "{\"steps\": {\"Claude/a\": {\"to\": \"codex/b\"}}}",
    `${file} is not a fallback config: at steps["Claude/a"]: "Claude/a" is not a place: the CLI "Claude" may hold only lowercase letters, digits and "-"; expected CLI[@ACCOUNT]/MODEL (e.g. claude@work/claude-opus-5)`
  ],
  [
    "a target that is not a place",
    "{\"steps\": {\"claude/a\": {\"to\": \"codex\"}}}",
    `${file} is not a fallback config: at steps["claude/a"].to: "codex" is not a place: there is no "/" and so no model; expected CLI[@ACCOUNT]/MODEL (e.g. claude@work/claude-opus-5)`
  ],
  [
    "a self-step",
    "{\"steps\": {\"claude/a\": {\"to\": \"claude/a\"}}}",
    `${file}: the step at claude/a points at itself; a place cannot fall back to itself`
  ],
  [
    "an unknown CLI",
    "{\"steps\": {\"claud/a\": {\"to\": \"codex/b\"}}}",
    `${file}: claud/a names the CLI "claud", which is not one fallback knows (did you mean claude?); known: claude, codex, gemini, opencode, antigravity`
  ],
  [
    "an unknown target",
    "{\"steps\": {\"claude/a\": {\"to\": \"codx/b\"}}}",
    `${file}: codx/b names the CLI "codx", which is not one fallback knows (did you mean codex?); known: claude, codex, gemini, opencode, antigravity`
  ],
  [
    "an account that is not set up",
    "{\"steps\": {\"claude/a\": {\"to\": \"codex@key/b\"}}, \"accounts\": {\"codex\": [{\"name\": \"work\"}]}}",
    `${file}: codex@key/b names the account "key", which is not set up for codex (it has work); add it with: fallback accounts add codex key`
  ],
  [
    "a secret literal",
    "{\"accounts\": {\"claude\": [{\"name\": \"work\", \"env\": {\"ANTHROPIC_API_KEY\": \"sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345\"}}]}}",
    `${file} is not a fallback config: at accounts.claude[0].env.ANTHROPIC_API_KEY: looks like a secret; keep it in your environment and write { "fromEnv": "NAME_OF_THAT_VARIABLE" } here instead`
  ],
  [
    "a bad variable name",
    "{\"accounts\": {\"claude\": [{\"name\": \"work\", \"env\": {\"ANTHROPIC_API_KEY\": {\"fromEnv\": \"1BAD\"}}}]}}",
    `${file} is not a fallback config: at accounts.claude[0].env.ANTHROPIC_API_KEY: { "fromEnv": "NAME_OF_A_VARIABLE" } (letters, digits and "_"), or a plain setting such as a base URL`
  ],
  [
    "an account listed twice",
    "{\"accounts\": {\"claude\": [{\"name\": \"work\"}, {\"name\": \"work\"}]}}",
    `${file} is not a fallback config: at accounts.claude: the account "work" is listed twice`
  ],
  [
    "a provider named like a CLI",
    "{\"providers\": {\"claude\": {\"kind\": \"anthropic-messages\", \"baseUrl\": \"http://127.0.0.1:1\"}}}",
    `${file}: the provider "claude" has the name of a CLI fallback drives; give it another name (its places are written claude-api/MODEL, say)`
  ],
  [
    "a provider of an unknown kind",
    "{\"providers\": {\"local\": {\"kind\": \"ollama\", \"baseUrl\": \"http://127.0.0.1:11434/v1\"}}}",
    `${file} is not a fallback config: at providers.local.kind: "anthropic-messages" or "openai-compatible"`
  ],
  [
    "a bin for a CLI fallback does not know",
    "{\"clis\": {\"claud\": {\"bin\": \"/opt/claude\"}}}",
    `${file}: clis.claud names the CLI "claud", which is not one fallback knows (did you mean claude?); known: claude, codex, gemini, opencode, antigravity`
  ],
  [
    "two bad values",
    "{\"steps\": {\"claude/a\": {\"retrying\": {\"tries\": -1}}, \"codex/b\": {\"to\": 5}}}",
    `${file} is not a fallback config: at steps["claude/a"].retrying.tries: a whole number of goes beyond the first, from 0 to 100; at steps["codex/b"].to: a place, written CLI[@ACCOUNT]/MODEL (e.g. claude@work/claude-opus-5)`
  ]
]

describe("ConfigFile", () => {
  it.each(corpus)("refuses %s, saying where and what was expected", (_, text, message) => {
    const result = ConfigFile.decode(file, text, ConfigFile.builtinClis)
    expect(Result.getOrThrow(Result.flip(result)).message).toBe(message)
  })

  it("reads a good file with accounts referencing the environment and plain settings", () => {
    const text = JSON.stringify({
      $schema: "https://example.invalid/config.schema.json",
      steps: {
        "claude@work/claude-opus-5": {
          to: "codex@key/gpt-5.6-sol",
          retrying: { tries: 3, policy: "exponential", timeout: 90 }
        },
        "codex@key/gpt-5.6-sol": { to: "opencode/anthropic/claude-sonnet-4-5" }
      },
      accounts: {
        claude: [{ name: "work", configDir: "~/.claude-work" }],
        codex: [{
          name: "key",
          env: { OPENAI_API_KEY: { fromEnv: "OPENAI_KEY_PERSONAL" }, OPENAI_BASE_URL: "http://127.0.0.1:8080/v1" }
        }]
      }
    })
    const document = Result.getOrThrow(ConfigFile.decode(file, text, ConfigFile.builtinClis))
    expect(JSON.parse(ConfigFile.encode(document))).toEqual(JSON.parse(text))
  })

  it("reads providers and CLI settings, and places on a provider are known", () => {
    const text = JSON.stringify({
      steps: { "claude/claude-opus-5": { to: "local/qwen3:8b" } },
      accounts: { local: [{ name: "gpu", env: { LOCAL_KEY: { fromEnv: "MY_LOCAL_KEY" } } }] },
      providers: {
        local: {
          kind: "openai-compatible",
          baseUrl: "http://127.0.0.1:11434/v1",
          key: { fromEnv: "LOCAL_KEY" },
          models: [{ name: "qwen3:8b", contextWindow: 32768 }]
        }
      },
      clis: { claude: { bin: "/opt/claude/bin/claude" } }
    })
    const document = Result.getOrThrow(ConfigFile.decode(file, text, ConfigFile.builtinClis))
    expect(JSON.parse(ConfigFile.encode(document))).toEqual(JSON.parse(text))
  })

  it.effect("a file that does not read is never overwritten", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const path = (yield* Path.Path).join(yield* folder, "config.json")
      for (const [, text] of corpus) {
        yield* fs.writeFileString(path, text)
        const error = yield* Effect.flip(
          withFile(path, Effect.flatMap(Steps.Steps, (steps) => steps.points("claude/x", "codex/y")))
        )
        expect(error._tag).not.toBe("ConfigUnwritable")
        expect(yield* fs.readFileString(path)).toBe(text)
      }
    }).pipe(Effect.provide(Node)))

  it.effect("writes the file 0600 in a folder it makes, with no temporary file left", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const root = yield* folder
      const config = path.join(root, "deep", "fallback", "config.json")
      yield* withFile(config, Effect.flatMap(Steps.Steps, (steps) => steps.points("claude/x", "codex/y")))
      expect(((yield* fs.stat(config)).mode & 0o777).toString(8)).toBe("600")
      expect((yield* fs.readDirectory(path.dirname(config))).sort()).toEqual(["config.json"])
      expect(JSON.parse(yield* fs.readFileString(config))).toEqual({
        steps: { "claude/x": { to: "codex/y" } },
        accounts: {}
      })
    }).pipe(Effect.provide(Node)))

  it.effect("steps and accounts written through the SDK are read back from the file", () =>
    Effect.gen(function*() {
      const config = (yield* Path.Path).join(yield* folder, "config.json")
      yield* withFile(
        config,
        Effect.gen(function*() {
          const accounts = yield* Accounts.Accounts
          yield* accounts.add("claude", new ConfigFile.Account({ name: "work", configDir: "/srv/claude-work" }))
          yield* accounts.add(
            "claude",
            new ConfigFile.Account({ name: "key", env: { ANTHROPIC_API_KEY: { fromEnv: "KEY2" } } })
          )
          const steps = yield* Steps.Steps
          yield* steps.points("claude@work/claude-opus-5", "codex/gpt-5.6-sol")
          yield* steps.retrying("claude@work/claude-opus-5", 2, "linear")
        })
      )
      const [chain, step, names] = yield* withFile(
        config,
        Effect.gen(function*() {
          const steps = yield* Steps.Steps
          return [
            yield* steps.chain("claude@work/claude-opus-5"),
            yield* steps.get("claude@work/claude-opus-5"),
            (yield* (yield* Accounts.Accounts).list("claude")).map((a) => a.name)
          ] as const
        })
      )
      expect(chain.map(Place.format)).toEqual(["claude@work/claude-opus-5", "codex/gpt-5.6-sol"])
      expect(Option.map(Option.flatMap(step, (s) => s.retrying), (r) => [r.tries, r.policy])).toEqual(
        Option.some([2, "linear"])
      )
      expect(names).toEqual(["work", "key"])
    }).pipe(Effect.provide(Node)))

  it.effect("accounts keep their order, refuse a repeat, and cannot be removed while a step names them", () =>
    Effect.gen(function*() {
      const config = (yield* Path.Path).join(yield* folder, "config.json")
      yield* withFile(
        config,
        Effect.gen(function*() {
          const accounts = yield* Accounts.Accounts
          for (const name of ["work", "key", "home"]) yield* accounts.add("claude", new ConfigFile.Account({ name }))
          expect((yield* Effect.flip(accounts.add("claude", new ConfigFile.Account({ name: "key" })))).message).toBe(
            "claude: the account \"key\" is already set up; remove it first to set it up again"
          )
          yield* accounts.order("claude", ["home", "work", "key"])
          expect((yield* accounts.list("claude")).map((a) => a.name)).toEqual(["home", "work", "key"])
          expect((yield* Effect.flip(accounts.order("claude", ["home", "work"]))).message).toBe(
            "claude: an order names each account once: home, work, key"
          )
          yield* (yield* Steps.Steps).points("claude@key/claude-opus-5", "codex/gpt-5")
          expect((yield* Effect.flip(accounts.remove("claude", "key"))).message).toBe(
            `${config}: claude@key/claude-opus-5 names the account "key", which is not set up for claude (it has home, work); add it with: fallback accounts add claude key`
          )
          yield* accounts.remove("claude", "home")
          expect((yield* accounts.list("claude")).map((a) => a.name)).toEqual(["work", "key"])
          expect((yield* Effect.flip(accounts.remove("claude", "home"))).message).toBe(
            "claude: there is no account \"home\" to remove (it has work, key)"
          )
        })
      )
    }).pipe(Effect.provide(Node)))

  describe("a provider's headers and timeouts", () => {
    const provider = (extra: object) =>
      JSON.stringify({
        providers: { local: { kind: "openai-compatible", baseUrl: "http://127.0.0.1:1/v1", ...extra } }
      })
    const refusal = (extra: object) =>
      Result.getOrThrow(Result.flip(ConfigFile.decode(file, provider(extra), ConfigFile.builtinClis))).message

    it("reads plain headers, headers from the environment and the provider's limits, and writes them back", () => {
      const text = provider({
        headers: { "X-Org": "research", Authorization: { fromEnv: "LOCAL_BEARER" }, "x-api-key": { fromEnv: "K" } },
        timeouts: { firstByte: 10, idle: 120 }
      })
      const document = Result.getOrThrow(ConfigFile.decode(file, text, ConfigFile.builtinClis))
      expect(document.providers.local?.timeouts).toEqual({ firstByte: 10, idle: 120 })
      expect(JSON.parse(ConfigFile.encode(document))).toEqual({ steps: {}, accounts: {}, ...JSON.parse(text) })
    })

    it("a credential's header takes its value only from the environment, with the fix said", () => {
      for (
        const name of ["Authorization", "proxy-authorization", "x-api-key", "X-Goog-Api-Key", "Cookie", "x-auth-token"]
      ) {
        expect(refusal({ headers: { [name]: "Bearer abc" } })).toBe(
          `${file} is not a fallback config: at providers.local.headers${
            /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? `.${name}` : `["${name}"]`
          }: the header ${name} carries a credential: looks like a secret; keep it in your environment and write { "fromEnv": "NAME_OF_THAT_VARIABLE" } here instead`
        )
      }
    })

    it("a secret as the plain value of any header is refused, and never echoed", () => {
      const message = refusal({ headers: { "X-Org": "sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345" } })
      expect(message).toContain("providers.local.headers[\"X-Org\"]: looks like a secret")
      expect(message).not.toContain("abcdefghijklmnop")
    })

    it("a header's name and a limit that are not what they should be say what they should be", () => {
      expect(refusal({ headers: { "X Org": "a" } })).toContain(
        "an HTTP header's name: letters, digits and \"-\", no spaces or colons"
      )
      expect(refusal({ headers: { "X-Org": { fromEnv: "1BAD" } } })).toContain(
        "at providers.local.headers[\"X-Org\"]: { \"fromEnv\": \"NAME_OF_A_VARIABLE\" }"
      )
      expect(refusal({ timeouts: { idle: 0 } })).toBe(
        `${file} is not a fallback config: at providers.local.timeouts.idle: seconds, more than 0`
      )
      expect(refusal({ timeouts: { firstByte: "10s" } })).toContain("at providers.local.timeouts.firstByte:")
    })

    it("a misspelt key gets \"did you mean\"", () => {
      expect(refusal({ timeout: { idle: 5 } })).toContain(
        "at providers.local.timeout: this key is not one a fallback config has (did you mean timeouts?)"
      )
      expect(refusal({ timeouts: { idel: 5 } })).toContain("(did you mean idle?)")
      expect(refusal({ header: {} })).toContain("(did you mean headers?)")
    })
  })

  it("an account cannot be made with a secret as a plain value", () => {
    const result = Schema.decodeUnknownResult(ConfigFile.Account)({
      name: "work",
      env: { ANTHROPIC_API_KEY: "sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345" }
    })
    expect(Result.isFailure(result)).toBe(true)
    expect(String(Result.getOrThrow(Result.flip(result)).message)).toContain("looks like a secret")
  })

  it("the published JSON Schema is the one the Effect Schema generates", () => {
    const published = readFileSync(fileURLToPath(new URL("../config.schema.json", import.meta.url)), "utf8")
    expect(JSON.parse(published)).toEqual(ConfigFile.jsonSchema())
  })

  it.effect("finds the file from FALLBACK_CONFIG, else XDG_CONFIG_HOME, else HOME", () =>
    Effect.gen(function*() {
      const at = (env: Record<string, string>) =>
        ConfigFile.location.pipe(Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnv({ env })))
      expect(yield* at({ FALLBACK_CONFIG: "/etc/fb.json", XDG_CONFIG_HOME: "/x", HOME: "/h" })).toBe("/etc/fb.json")
      expect(yield* at({ XDG_CONFIG_HOME: "/x", HOME: "/h" })).toBe("/x/fallback/config.json")
      expect(yield* at({ HOME: "/h" })).toBe("/h/.config/fallback/config.json")
      expect(String(yield* Effect.flip(at({})))).toContain("HOME")
    }).pipe(Effect.provide(NodePath.layer)))
})
