// One permission vocabulary, mapped per CLI (issue 22): every rung at every CLI, run as a real
// child process that records the argv and environment it was given.
import { describe, expect, it } from "@effect/vitest"
import * as Accounts from "@fallback/core/Accounts"
import * as Agent from "@fallback/core/Agent"
import * as Backend from "@fallback/core/Backend"
import * as ConfigFile from "@fallback/core/ConfigFile"
import * as Health from "@fallback/core/Health"
import * as Notice from "@fallback/core/Notice"
import * as Place from "@fallback/core/Place"
import * as Settings from "@fallback/core/Settings"
import * as Steps from "@fallback/core/Steps"
import { Effect, Layer, Option, Stream } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as Antigravity from "../src/Antigravity.js"
import * as Claude from "../src/Claude.js"
import * as Codex from "../src/Codex.js"
import * as Gemini from "../src/Gemini.js"
import * as OpenCode from "../src/OpenCode.js"
import { executable, folder } from "./fakes.js"

const agents = fileURLToPath(new URL("../../../test/fixtures/agents", import.meta.url))

/** A fake CLI that records its argv and opencode's config, then plays a recorded run of the real one. */
const recording = (dir: string, name: string, fixture: string) => {
  const played = JSON.parse(fs.readFileSync(path.join(agents, fixture), "utf8"))
  return executable(
    dir,
    name,
    `require("node:fs").appendFileSync(${JSON.stringify(path.join(dir, "runs.jsonl"))}, JSON.stringify({
  args: process.argv.slice(2), config: process.env.OPENCODE_CONFIG_CONTENT
}) + "\\n")
process.stdout.write(${JSON.stringify(played.stdout)})
process.stderr.write(${JSON.stringify(played.stderr)})
process.exitCode = ${played.exitCode}`
  )
}

interface Run {
  readonly args: ReadonlyArray<string>
  readonly config?: string
}

const runs = (dir: string): ReadonlyArray<Run> => {
  const file = path.join(dir, "runs.jsonl")
  return fs.existsSync(file) ? fs.readFileSync(file, "utf8").trim().split("\n").map((line) => JSON.parse(line)) : []
}

const clis = {
  claude: { make: Claude.make, model: "claude-sonnet-4-5", fixture: "claude" },
  codex: { make: Codex.make, model: "gpt-5.5", fixture: "codex" },
  gemini: { make: Gemini.make, model: "gemini-2.5-flash", fixture: "gemini" },
  opencode: { make: OpenCode.make, model: "mock/mock-model", fixture: "opencode" },
  // antigravity reads gemini's stream
  antigravity: { make: Antigravity.make, model: "gemini-2.5-flash", fixture: "gemini" }
} as const
type Cli = keyof typeof clis

const backendAt = (cli: Cli, dir: string, fault = "answer") =>
  clis[cli].make({
    bin: recording(dir, cli, `${clis[cli].fixture}/${fault}.json`),
    cwd: dir,
    env: { HOME: dir },
    home: dir
  } as never)

const never = `approval_policy="never"`

/**
 * What each rung is at each CLI, as the README's table says it: the flags added to its argv, or
 * for opencode the `permission` of its config; undefined where the CLI cannot express the rung.
 */
const table: Record<Cli, Record<Settings.Permission, ReadonlyArray<string> | object | undefined>> = {
  claude: {
    "read-only": ["--permission-mode", "plan"],
    ask: ["--permission-mode", "default"],
    edit: ["--permission-mode", "acceptEdits"],
    full: ["--permission-mode", "bypassPermissions"]
  },
  codex: {
    "read-only": ["--sandbox", "read-only", "-c", never],
    ask: undefined,
    edit: undefined,
    full: ["--sandbox", "danger-full-access", "-c", never]
  },
  gemini: {
    "read-only": undefined,
    ask: ["--approval-mode", "default"],
    edit: ["--approval-mode", "auto_edit"],
    full: ["--approval-mode", "yolo"]
  },
  opencode: {
    "read-only": {
      "*": "deny",
      edit: "deny",
      bash: "deny",
      webfetch: "deny",
      task: "deny",
      external_directory: "deny",
      doom_loop: "deny",
      read: "allow",
      glob: "allow",
      grep: "allow",
      list: "allow",
      websearch: "allow"
    },
    ask: undefined,
    edit: {
      "*": "deny",
      edit: "allow",
      bash: "deny",
      webfetch: "deny",
      task: "deny",
      external_directory: "deny",
      doom_loop: "deny",
      read: "allow",
      glob: "allow",
      grep: "allow",
      list: "allow",
      websearch: "allow"
    },
    full: { "*": "allow" }
  },
  antigravity: { "read-only": undefined, ask: undefined, edit: undefined, full: undefined }
}

/** One turn at the CLI with these settings, straight at its backend; what the fake was given. */
const turnAt = (cli: Cli, settings: Settings.Settings) =>
  Effect.gen(function*() {
    const dir = folder()
    const backend = backendAt(cli, dir)
    const place = new Place.Place({ cli, model: clis[cli].model })
    const session = yield* backend.open(place, Option.none(), settings, {})
    yield* Stream.runDrain(session.turn({ text: "hi", history: [] }))
    return runs(dir)[0]!
  })

/** The flags a rung added to a plain turn's argv, in order. */
const added = (plain: ReadonlyArray<string>, given: ReadonlyArray<string>): ReadonlyArray<string> => {
  const extra: Array<string> = []
  let at = 0
  for (const arg of given) {
    if (at < plain.length && plain[at] === arg) at++
    else extra.push(arg)
  }
  expect(at).toBe(plain.length)
  return extra
}

/** How wide each CLI's own modes are, on the rungs' scale: what a person reads in the CLI's docs. */
const width = (cli: Cli, mapped: ReadonlyArray<string> | object): number => {
  if (cli === "opencode") {
    const permission = mapped as Record<string, string>
    return permission["*"] === "allow" ? 3 : permission.edit === "allow" ? 2 : 0
  }
  const modes: Record<string, number> = {
    plan: 0,
    default: 1,
    acceptEdits: 2,
    bypassPermissions: 3,
    "read-only": 0,
    "workspace-write": 2,
    "danger-full-access": 3,
    auto_edit: 2,
    yolo: 3
  }
  return (mapped as ReadonlyArray<string>).flatMap((flag) => modes[flag] === undefined ? [] : [modes[flag]]).at(-1)!
}

describe("permission rungs at each CLI, run as a real process", () => {
  for (const cli of Object.keys(clis) as Array<Cli>) {
    for (const rung of Settings.permissions) {
      const expected = table[cli][rung]
      if (expected === undefined) {
        it(`${cli} cannot run at ${rung}: its capabilities say so, and it is never given a neighbour`, () => {
          const backend = backendAt(cli, folder())
          expect(Option.getOrThrow(Settings.refusal(new Settings.Settings({ permission: rung }), backend.capabilities)))
            .toMatch(new RegExp(`permission rung.*${rung}`))
        })
        continue
      }
      it.live(`${cli} at ${rung} is given exactly ${JSON.stringify(expected)}`, () =>
        Effect.gen(function*() {
          const plain = yield* turnAt(cli, Settings.plain)
          const given = yield* turnAt(cli, new Settings.Settings({ permission: rung }))
          if (cli === "opencode") {
            expect(given.args).toEqual(plain.args)
            expect(JSON.parse(plain.config!).permission).toBeUndefined()
            expect(JSON.parse(given.config!).permission).toEqual(expected)
          } else {
            expect(added(plain.args, given.args)).toEqual(expected)
          }
        }))
    }
  }

  it.live("no rung maps to a wider mode at any CLI than at claude for the same rung, nor to a narrower one", () =>
    Effect.gen(function*() {
      // what each CLI is actually given, run by run, not the table above
      const mappedAt = (cli: Cli, rung: Settings.Permission) =>
        Effect.gen(function*() {
          const settings = new Settings.Settings({ permission: rung })
          if (Option.isSome(Settings.refusal(settings, backendAt(cli, folder()).capabilities))) return undefined
          const given = yield* turnAt(cli, settings)
          if (cli === "opencode") return JSON.parse(given.config!).permission as object
          return added((yield* turnAt(cli, Settings.plain)).args, given.args)
        })
      for (const rung of Settings.permissions) {
        const atClaude = width("claude", (yield* mappedAt("claude", rung))!)
        expect(atClaude).toBe(Settings.permissions.indexOf(rung))
        for (const cli of Object.keys(clis) as Array<Cli>) {
          const mapped = yield* mappedAt(cli, rung)
          if (mapped !== undefined) expect(width(cli, mapped), `${cli} at ${rung}`).toBe(atClaude)
        }
      }
    }))

  it.live("opencode with web search off is denied it at its rung, whatever the rung allows", () =>
    Effect.gen(function*() {
      const given = yield* turnAt("opencode", new Settings.Settings({ permission: "edit", webSearch: false }))
      expect(JSON.parse(given.config!).permission.websearch).toBe("deny")
    }))
})

const heard: Array<string> = []

const world = (dirs: Record<"claude" | "codex" | "gemini", string>) => {
  const backends = Backend.Backends.layer([
    backendAt("claude", dirs.claude, "model-not-found"),
    backendAt("codex", dirs.codex, "model-not-found"),
    backendAt("gemini", dirs.gemini)
  ])
  const chain = ["claude/claude-sonnet-4-5", "codex/gpt-5.5", "gemini/gemini-2.5-flash"]
  const written = Layer.effectDiscard(
    Effect.gen(function*() {
      const steps = yield* Steps.Steps
      for (let i = 1; i < chain.length; i++) yield* steps.points(chain[i - 1]!, chain[i]!)
    }).pipe(Effect.orDie)
  )
  const store = Layer.mergeAll(Steps.Steps.layer, Accounts.Accounts.layer).pipe(
    Layer.provide(ConfigFile.Store.layerMemory())
  )
  const notices = Layer.succeed(Notice.Notices, {
    publish: (notice) => Effect.sync(() => void heard.push(Notice.format(notice))),
    watch: Effect.die("not watched in tests")
  })
  return Layer.provideMerge(written, Layer.mergeAll(backends, store, Health.Health.layerMemory(), notices))
}

describe("a chain claude → codex → gemini", () => {
  const turn = (rung: Settings.Permission) => {
    const dirs = { claude: folder(), codex: folder(), gemini: folder() }
    heard.length = 0
    return Effect.gen(function*() {
      const agent = yield* Agent.make("claude/claude-sonnet-4-5", new Settings.Settings({ permission: rung }))
      const answer = yield* Effect.result(Agent.ask(agent, "hi"))
      return { answer, dirs, runs: { claude: runs(dirs.claude), codex: runs(dirs.codex), gemini: runs(dirs.gemini) } }
    }).pipe(Effect.provide(world(dirs)))
  }

  it.live("at read-only, which gemini cannot express, stops at gemini: it is never run, and the turn says why", () =>
    Effect.gen(function*() {
      const { answer, runs } = yield* turn("read-only")
      expect(runs.claude[0]!.args.join(" ")).toContain("--permission-mode plan")
      expect(runs.codex[0]!.args.join(" ")).toContain(`--sandbox read-only -c ${never}`)
      expect(runs.gemini).toEqual([])
      expect(answer._tag).toBe("Failure")
      expect(heard.at(-1)).toMatch(/gemini cannot run at the permission rung read-only exactly/)
    }))

  it.live("at full, which each of them expresses, reaches gemini at yolo and is answered", () =>
    Effect.gen(function*() {
      const { answer, runs } = yield* turn("full")
      expect(answer._tag).toBe("Success")
      expect(runs.codex[0]!.args.join(" ")).toContain(`--sandbox danger-full-access -c ${never}`)
      expect(runs.gemini[0]!.args.join(" ")).toContain("--approval-mode yolo")
    }))
})
