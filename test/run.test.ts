// `fallback run`'s flags, end to end: the installed bin as a real process, driving a stand-in
// claude (test/fixtures/standins/claude) on PATH whose accounts are folders that say how it
// behaves and record the arguments it was given.
import { spawn } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"

import * as RunOutput from "../packages/cli/src/RunOutput.js"

const root = fileURLToPath(new URL("..", import.meta.url))
const bin = join(root, "node_modules", ".bin", "fallback")
const standins = join(root, "test", "fixtures", "standins")
const place = (account: string) => `claude@${account}/claude-opus-5`

interface Ran {
  readonly code: number | null
  readonly out: string
  readonly err: string
}

/** A config with claude accounts a and b, each a folder whose `behaviour` file the stand-in reads. */
const setUp = (behaviours: { readonly a: string; readonly b?: string }, steps: Record<string, unknown> = {}) => {
  const home = mkdtempSync(join(tmpdir(), "fallback-run-flags-"))
  const dirs = { a: join(home, "a"), b: join(home, "b") }
  mkdirSync(dirs.a)
  mkdirSync(dirs.b)
  writeFileSync(join(dirs.a, "behaviour"), behaviours.a)
  writeFileSync(join(dirs.b, "behaviour"), behaviours.b ?? "answer")
  const config = join(home, "config.json")
  writeFileSync(
    config,
    JSON.stringify({
      steps,
      accounts: { claude: [{ name: "a", configDir: dirs.a }, { name: "b", configDir: dirs.b }] }
    })
  )
  const argv = (account: "a" | "b"): Array<Array<string>> => {
    const file = join(dirs[account], "argv.jsonl")
    return existsSync(file) ? readFileSync(file, "utf8").trim().split("\n").map((line) => JSON.parse(line)) : []
  }
  const behave = (account: "a" | "b", behaviour: string) => writeFileSync(join(dirs[account], "behaviour"), behaviour)
  const fallback = (...args: Array<string>) =>
    new Promise<Ran>((resolve) => {
      const child = spawn(bin, args, {
        env: { PATH: `${standins}:${process.env.PATH ?? ""}`, HOME: home, FALLBACK_CONFIG: config },
        stdio: ["ignore", "pipe", "pipe"]
      })
      let [out, err] = ["", ""]
      child.stdout.on("data", (chunk) => (out += chunk))
      child.stderr.on("data", (chunk) => (err += chunk))
      child.on("close", (code) => resolve({ code, out, err }))
    })
  /** The bin on a pseudo-terminal (util-linux `script`): stdout and stderr together, as a person sees them. */
  const onTerminal = (input: string, ...args: Array<string>) =>
    new Promise<Ran>((resolve) => {
      const line = [bin, ...args].map((arg) => `'${arg.replace(/'/g, "'\\''")}'`).join(" ")
      const child = spawn("script", ["-qfec", line, "/dev/null"], {
        env: { PATH: `${standins}:${process.env.PATH ?? ""}`, HOME: home, FALLBACK_CONFIG: config, TERM: "dumb" },
        stdio: ["pipe", "pipe", "pipe"]
      })
      let [out, err] = ["", ""]
      child.stdout.on("data", (chunk) => (out += chunk))
      child.stderr.on("data", (chunk) => (err += chunk))
      child.on("close", (code) => resolve({ code, out, err }))
      // typed once the command has had time to ask for it; a pseudo-terminal reads ctrl+d as the end
      setTimeout(() => child.stdin.write(input), 1500)
    })
  return { config, home, argv, behave, fallback, onTerminal }
}

const lines = (out: string) =>
  out.trim().split("\n").map((line) =>
    Schema.decodeUnknownSync(RunOutput.Line, { onExcessProperty: "error" })(JSON.parse(line))
  )

describe("fallback run's flags", () => {
  it("passes effort, permission and web search off to the CLI, and takes skills", async () => {
    const { argv, fallback, home } = setUp({ a: "answer" })
    const skill = (name: string) => {
      mkdirSync(join(home, "skills", name), { recursive: true })
      writeFileSync(join(home, "skills", name, "SKILL.md"), `---\nname: ${name}\ndescription: ${name}\n---\n`)
      return join(home, "skills", name)
    }
    const [review, tests] = [skill("review"), skill("tests")]
    const ran = await fallback(
      "run",
      place("a"),
      "--effort",
      "high",
      "--permission",
      "edit",
      "--no-web-search",
      "--skill",
      review,
      "--skill",
      tests,
      "Fix it"
    )
    expect(ran).toEqual({ code: 0, out: "new: Fix it\n", err: "" })
    const [args] = argv("a")
    expect(args!.join(" ")).toContain("--effort high --permission-mode acceptEdits --disallowedTools WebSearch")
    // the skills reach claude as a plugin of the session's, each a link to its folder; gone after the turn
    const pluginDir = args![args!.indexOf("--plugin-dir") + 1]!
    const carried = readFileSync(join(home, "a", "plugins.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l))
    expect(carried).toEqual([{ name: "fallback-skills", skills: { review, tests } }])
    expect(existsSync(pluginDir)).toBe(false)
  })

  it("a permission word outside the rungs is refused before any CLI is run, naming the rung to write", async () => {
    const { argv, fallback } = setUp({ a: "answer" })
    // yolo once walked past claude's accounts and ran at gemini as --approval-mode yolo (issue 22)
    const yolo = await fallback("run", place("a"), "--permission", "yolo", "Fix it")
    expect(yolo).toEqual({
      code: 1,
      out: "",
      err: "fallback: --permission yolo: \"yolo\" is gemini's own word, not a permission rung: write full " +
        "(the rungs, narrowest first: read-only, ask, edit, full; each CLI is given its own flags for it)\n"
    })
    const typo = await fallback("run", place("a"), "--permission", "eddit", "Fix it")
    expect(typo.code).toBe(1)
    expect(typo.err).toBe(
      "fallback: --permission eddit: \"eddit\" is not a permission rung (did you mean edit?); " +
        "the rungs, narrowest first: read-only, ask, edit, full\n"
    )
    expect([...argv("a"), ...argv("b")]).toEqual([])
  })

  it("a rung the starting place's CLI cannot run at exactly stops the turn before it starts, saying which it can", async () => {
    const { fallback } = setUp({ a: "answer" })
    for (
      const [at, rung, can] of [
        ["codex/gpt-5.5", "edit", "read-only, full"],
        ["gemini/gemini-2.5-flash", "read-only", "ask, edit, full"],
        ["opencode/x/y", "ask", "read-only, edit, full"]
      ] as const
    ) {
      const refused = await fallback("run", at, "--permission", rung, "Fix it")
      expect(refused.code, at).toBe(1)
      expect(refused.err, at).toBe(
        `fallback: ${at}: ${
          at.split("/")[0]
        } cannot run at the permission rung ${rung} exactly (it runs at ${can} only); start at a place whose CLI can, or leave it out\n`
      )
    }
  })

  it("a skill that is not a folder with a SKILL.md, or a CLI that cannot take skills, stops the turn saying so", async () => {
    const { fallback, home } = setUp({ a: "answer" })
    const missing = await fallback("run", place("a"), "--skill", "review", "Fix it")
    expect(missing.code).toBe(1)
    expect(missing.err).toBe(
      `fallback: --skill review: no SKILL.md in ${
        join(process.cwd(), "review")
      }; a skill is a folder with its SKILL.md (the Agent Skills layout)\n`
    )
    mkdirSync(join(home, "review"))
    writeFileSync(join(home, "review", "SKILL.md"), "---\nname: review\n---\n")
    for (const cli of ["codex/gpt-5.5", "gemini/gemini-2.5-flash", "opencode/x/y"]) {
      const refused = await fallback("run", cli, "--skill", join(home, "review"), "Fix it")
      expect(refused.code, cli).toBe(1)
      expect(refused.err, cli).toBe(
        `fallback: ${cli}: ${cli.split("/")[0]} cannot be given skills (${
          join(home, "review")
        }); start at a place whose CLI can, or leave it out\n`
      )
    }
  })

  it("--continue resumes the last conversation from PLACE, across an account move", async () => {
    const { argv, behave, fallback } = setUp({ a: "answer" })
    expect(await fallback("run", place("a"), "--continue", "Hello")).toEqual({
      code: 1,
      out: "",
      err: `fallback: no earlier turn from ${
        place("a")
      } started a conversation to continue; run it without --continue, or name one with --session ID\n`
    })
    expect((await fallback("run", place("a"), "Hello")).out).toMatch(/^new: Hello\n$/)
    expect(argv("a")[0]).not.toContain("--resume")
    behave("a", "refuse")
    const moved = await fallback("run", place("a"), "-c", "Again")
    expect(moved.code).toBe(0)
    expect(moved.out).toMatch(/^resumed session-a-\d+: Again\n$/)
    expect(moved.err).toContain("carrying on as b")
    const resumedAtA = argv("a")[1]!
    const resumedAtB = argv("b")[0]!
    expect(resumedAtA[resumedAtA.indexOf("--resume") + 1]).toMatch(/^session-a-\d+$/)
    expect(resumedAtB[resumedAtB.indexOf("--resume") + 1]).toBe(resumedAtA[resumedAtA.indexOf("--resume") + 1])
    // the turn after that starts where the conversation now is: account b
    const next = await fallback("run", place("a"), "--continue", "Once more")
    expect(next.out).toMatch(/^resumed session-a-\d+: Once more\n$/)
    expect(argv("a")).toHaveLength(2)
    expect(argv("b")).toHaveLength(2)
  })

  it("--session ID resumes that conversation", async () => {
    const { argv, fallback } = setUp({ a: "answer" })
    expect((await fallback("run", place("a"), "--session", "abc-123", "Hello")).out).toBe("resumed abc-123: Hello\n")
    expect(argv("a")[0]).toContain("abc-123")
    expect((await fallback("run", place("a"), "--session", "x", "--continue", "Hello")).err).toBe(
      "fallback: --continue and --session both name a conversation; give one\n"
    )
  })

  it("--json writes one object a line, each of the schema, ending with the outcome", async () => {
    const { fallback } = setUp({ a: "refuse" })
    const ran = await fallback("run", place("a"), "--json", "Hello")
    expect(ran.code).toBe(0)
    expect(ran.err).toBe("")
    const written = lines(ran.out)
    expect(written.map((line) => line.type)).toEqual(["notice", "moved", "session", "text", "result", "outcome"])
    expect(written[1]).toEqual({ type: "moved", from: place("a"), to: place("b"), by: "account", kind: "AuthRefused" })
    expect(written[0]).toMatchObject({ notice: "Moving", kind: "AuthRefused", place: place("a"), to: place("b") })
    // the outcome carries the model that answered, the usage and the moves (issue 25)
    expect(written.at(-1)).toEqual({
      type: "outcome",
      ok: true,
      status: 0,
      place: place("b"),
      model: "claude-opus-5",
      usage: expect.objectContaining({ input: expect.any(Number), output: expect.any(Number) }),
      moves: [{ from: place("a"), to: place("b"), by: "account", kind: "AuthRefused" }]
    })
  })

  it("--json ends a failed turn with its kind and exit status", async () => {
    const { fallback } = setUp({ a: "refuse", b: "refuse" })
    const ran = await fallback("run", place("a"), "--json", "Hello")
    expect(ran.code).toBe(12)
    const outcome = lines(ran.out).at(-1)
    expect(outcome).toMatchObject({ type: "outcome", ok: false, status: 12, kind: "AuthRefused", place: place("b") })
  })

  it("--quiet says nothing about recovery; --attempts bounds the goes in all", async () => {
    const { argv, fallback } = setUp({ a: "refuse" })
    const quiet = await fallback("run", place("a"), "--quiet", "Hello")
    expect(quiet).toMatchObject({ code: 0, err: "" })
    expect(quiet.out).toMatch(/: Hello\n$/)
    // a refused account stays refused until cleared: clear it so a is asked again
    await fallback("status", "--clear")
    const bounded = await fallback("run", place("a"), "--attempts", "1", "Hello")
    expect(bounded.code).toBe(12)
    expect(argv("b")).toHaveLength(1)
  })

  it("--first-byte moves on from a place that sends nothing in time", async () => {
    // a timeout is answered by the next place (no account answers it): the step names b
    const { argv, fallback } = setUp({ a: "slow" }, { [place("a")]: { to: place("b") } })
    const ran = await fallback("run", place("a"), "--first-byte", "5s", "Hello")
    expect(ran.code).toBe(0)
    expect(ran.out).toBe("new: Hello\n")
    expect(ran.err).toMatch(
      /^claude(?:@a)? sent nothing within 5s.*; carrying on (?:as b|at claude@b\/claude-opus-5)\n$/
    )
    expect(argv("b")).toHaveLength(1)
  }, 90_000)

  it("the config's run settings stand where no flag says otherwise: attempts, answers, the breaker", async () => {
    const { argv, config, fallback } = setUp({ a: "refuse" })
    const withRun = (run: unknown) =>
      writeFileSync(config, JSON.stringify({ ...JSON.parse(readFileSync(config, "utf8")), run }))
    withRun({ attempts: 1 })
    expect((await fallback("run", place("a"), "Hello")).code).toBe(12)
    expect(argv("b")).toHaveLength(0)
    expect((await fallback("run", place("a"), "--attempts", "2", "Hello")).code).toBe(0)
    expect(argv("b")).toHaveLength(1)
    // a refused key walks no accounts, and one failure parks the place
    withRun({ answers: { AuthRefused: { accounts: false } }, breaker: { failures: 1, park: 600 } })
    await fallback("status", "--clear")
    expect((await fallback("run", place("a"), "Hello")).code).toBe(12)
    expect(argv("b")).toHaveLength(1)
    expect(JSON.parse((await fallback("status", "--json")).out)).toMatchObject([{
      place: place("a"),
      breaker: "parked"
    }])
    withRun({ answers: { AuthRefused: { acounts: false } } })
    expect((await fallback("run", place("a"), "Hello")).err).toBe(
      `fallback: ${config} is not a fallback config: at run.answers.AuthRefused.acounts: this key is not one a fallback config has (did you mean accounts?)\n`
    )
  })

  it("refuses numbers it cannot use, naming the flag", async () => {
    const { fallback } = setUp({ a: "answer" })
    expect(await fallback("run", place("a"), "--deadline", "soon", "Hello")).toMatchObject({
      code: 1,
      err: "fallback: \"soon\" is not a time; write seconds (90, 90s) or add a unit: 500ms, 2m, 1h, 0 for none\n"
    })
    expect((await fallback("run", place("a"), "--attempts", "0", "Hello")).err).toBe(
      "fallback: --attempts 0: a turn takes at least 1 go\n"
    )
    expect((await fallback("run", place("a"), "--deadline", "0", "Hello")).err).toBe(
      "fallback: --deadline 0: a turn needs some time; write 90s, 10m…\n"
    )
  })

  it(
    "on a terminal: a hint when it reads the prompt, a countdown through each wait, and where it was answered",
    async () => {
      const { onTerminal } = setUp({ a: "flaky 2" }, {
        [place("a")]: { retrying: { tries: 2, policy: "linear" } }
      })
      const ran = await onTerminal("Say hi\n\u0004", "run", place("a"))
      expect(ran.code).toBe(0)
      const screen = ran.out.replace(/\r\n/g, "\n")
      expect(screen).toContain(
        "fallback: type the prompt, then ctrl+d on a line of its own (or pass it as an argument)"
      )
      expect(screen).toContain(`trying ${place("a")} again in 2s…`)
      expect(screen).toContain(`trying ${place("a")} again in 1s…`)
      expect(screen).toContain("new: Say hi")
      expect(screen.trim().split("\n").at(-1)).toBe(`answered at ${place("a")}`)
    },
    90_000
  )
})

describe("fallback status: the health a user can read, clear and try", () => {
  it("records a failed place, gives its kind in JSON, clears it, and tries a parked one now", async () => {
    const { behave, fallback } = setUp({ a: "flaky 5" })
    const status = async () => JSON.parse((await fallback("status", "--json")).out)
    for (let i = 0; i < 5; i++) expect((await fallback("run", place("a"), "Hello")).code).toBe(0)
    expect(await status()).toMatchObject([{ place: place("a"), breaker: "parked", failures: 5, kind: "Unknown" }])
    const skipping = await fallback("run", place("a"), "Hello")
    expect(skipping.err).toContain(`${place("a")} is parked after failing too often in a row`)
    behave("a", "answer")
    expect(await fallback("status", "--try", place("a"))).toEqual({
      code: 0,
      out: `${place("a")} answered; its failures are cleared\n`,
      err: ""
    })
    expect(await status()).toEqual([])
    behave("a", "refuse")
    await fallback("run", place("a"), "Hello")
    expect((await status()).map((entry: { place: string }) => entry.place)).toEqual([place("a")])
    expect(await fallback("status", "--try", place("a"))).toMatchObject({
      code: 12,
      out: "",
      err: expect.stringMatching(
        /^fallback: claude@a\/claude-opus-5 failed again: .*credentials.*; the failure is recorded\n$/
      )
    })
    expect((await fallback("status", "--clear", place("b"))).out).toBe(
      `${place("b")} has no failures recorded; nothing to clear\n`
    )
    expect((await fallback("status", "--clear", place("a"))).out).toBe(`cleared ${place("a")}\n`)
    expect((await fallback("status")).out).toBe("Every place is healthy: no failures recorded.\n")
    expect((await fallback("status", "--try")).err).toBe(
      "fallback: --try needs the place to try: fallback status --try CLI[@ACCOUNT]/MODEL\n"
    )
  }, 120_000)
})

describe("a CLI that refuses its arguments", () => {
  it("fails the turn at once, saying what was refused: no other account, no health recorded", async () => {
    const { argv, fallback } = setUp({ a: "usage" })
    const ran = await fallback("run", place("a"), "Hello")
    expect(ran.code).toBe(22)
    expect(argv("a")).toHaveLength(1)
    expect(argv("b")).toHaveLength(0)
    expect(ran.err).toBe(
      "claude refused the argument --permission-mode yolo fallback gave it: error: option '--permission-mode <mode>' argument 'yolo' is invalid. Allowed choices are acceptEdits, bypassPermissions, default, dontAsk, plan.; the turn fails here: it is taken once, whatever a chain says\n" +
        "fallback: claude refused the argument --permission-mode yolo fallback gave it: error: option '--permission-mode <mode>' argument 'yolo' is invalid. Allowed choices are acceptEdits, bypassPermissions, default, dontAsk, plan.\n"
    )
    expect((await fallback("status")).out).toBe("Every place is healthy: no failures recorded.\n")
  })
})

describe("each run remembers what already failed", () => {
  it("a refused account is not asked again by the next run until it is cleared, and the notice says how", async () => {
    const { argv, behave, fallback } = setUp({ a: "refuse" })
    const first = await fallback("run", place("a"), "Hello")
    expect(first.code).toBe(0)
    expect(argv("a")).toHaveLength(1)
    const second = await fallback("run", place("a"), "Hello")
    expect(second.code).toBe(0)
    expect(argv("a")).toHaveLength(1)
    expect(second.err).toMatch(
      new RegExp(
        `^${
          place("a")
        } is cooling down for another 2[34]h[^;]* \\(it refused the credentials: sign in again, then \`fallback status --clear ${
          place("a")
        }\`\\); skipping it\n`
      )
    )
    expect(JSON.parse((await fallback("status", "--json")).out)).toMatchObject([{
      place: place("a"),
      kind: "AuthRefused"
    }])
    behave("a", "answer")
    await fallback("status", "--clear", place("a"))
    expect((await fallback("run", place("a"), "Hello")).out).toBe("new: Hello\n")
    expect(argv("a")).toHaveLength(2)
  }, 90_000)
})

describe("fallback's help", () => {
  const help = (...args: Array<string>) => setUp({ a: "answer" }).fallback(...args)

  it("is one line per command at the root, with fallback in every usage line", async () => {
    const root = await help("--help")
    expect(root.code).toBe(0)
    const commands = root.out.slice(
      root.out.indexOf("Commands:\n"),
      root.out.indexOf("\n\n", root.out.indexOf("Commands:\n"))
    )
    expect(commands.split("\n").slice(1).map((line) => line.trim().split(/\s+/)[0])).toEqual([
      "init",
      "run",
      "serve",
      "point",
      "retry",
      "clear",
      "list",
      "chain",
      "accounts",
      "status",
      "waits",
      "doctor",
      "edit",
      "demo",
      "mock"
    ])
    expect(root.out.split("\n").length).toBeLessThan(40)
    expect((await help()).out).toBe(root.out)
    expect(root.out).not.toMatch(/--wizard|--log-level|A user-defined piece of text/)
  })

  it("shows each command's usage, its options one a line, and examples", async () => {
    for (
      const command of [
        "init",
        "run",
        "serve",
        "point",
        "retry",
        "clear",
        "list",
        "chain",
        "accounts",
        "status",
        "waits",
        "doctor",
        "edit",
        "demo",
        "mock"
      ]
    ) {
      const shown = await help(command, "--help")
      expect(shown.code, command).toBe(0)
      expect(shown.out, command).toMatch(new RegExp(`^Usage: fallback ${command}`))
      expect(shown.out, command).toMatch(new RegExp(`\\nExamples:\\n  (?:echo .* \\| )?fallback ${command}`))
      expect(shown.out, command).not.toMatch(
        /--wizard|--log-level|--completions|A user-defined piece of text|This setting is optional/
      )
    }
    const add = await help("accounts", "add", "-h")
    expect(add.out).toMatch(/^Usage: fallback accounts add CLI NAME/)
    expect(add.out).toContain("  --config-dir DIR")
    expect((await help("help", "run")).out).toBe((await help("run", "--help")).out)
    expect((await help("run", "--help")).out).toContain("  -c, --continue")
    expect((await help("run", "--help")).out).toContain("  -j, --json")
    expect((await help("list", "--help")).out).toContain("  -j, --json")
  })
})

describe("messages that say the fix", () => {
  it("a place at an unknown CLI or provider is refused with the provider to add", async () => {
    const { config, fallback } = setUp({ a: "answer" })
    // run and point refuse it by one rule, in the same words
    const run = await fallback("run", "ollama/qwen3:8b", "Hello")
    expect(run).toEqual({
      code: 1,
      out: "",
      err:
        `fallback: ${config}: ollama/qwen3:8b names the CLI "ollama", which is not one fallback knows; known: claude, codex, gemini, opencode, antigravity; for a model server, name it under "providers" first, e.g. "ollama": { "kind": "openai-compatible", "baseUrl": "http://127.0.0.1:11434/v1" }\n`
    })
    expect((await fallback("point", "ollama/qwen3:8b", place("a"))).err).toBe(run.err)
  })

  it("an unknown key in the config file gets the nearest one", async () => {
    const { config, fallback } = setUp({ a: "answer" })
    writeFileSync(
      config,
      JSON.stringify({
        stpes: {},
        accounts: { claude: [{ name: "a", confDir: "/x" }] },
        clis: { codex: { endpoint: { baseURL: "http://127.0.0.1:9/v1" } } }
      })
    )
    expect((await fallback("list")).err).toBe(
      `fallback: ${config} is not a fallback config: at stpes: this key is not one a fallback config has (did you mean steps?); ` +
        "at accounts.claude[0].confDir: this key is not one a fallback config has (did you mean configDir?); " +
        "at clis.codex.endpoint.baseURL: this key is not one a fallback config has (did you mean baseUrl?); " +
        "at clis.codex.endpoint.baseUrl: is missing\n"
    )
  })

  it("doctor checks the variables a provider's headers are read from, never showing a value", async () => {
    const { config, fallback } = setUp({ a: "answer" })
    const document = JSON.parse(readFileSync(config, "utf8"))
    writeFileSync(
      config,
      JSON.stringify({
        ...document,
        providers: {
          gateway: {
            kind: "openai-compatible",
            baseUrl: "http://127.0.0.1:9/v1",
            headers: { "X-Team": "research", Authorization: { fromEnv: "GATEWAY_BEARER_UNSET" } }
          }
        }
      })
    )
    const ran = await fallback("doctor")
    expect(ran.code).toBe(1)
    expect(ran.out).toContain(
      "✗ gateway          its header Authorization is taken from GATEWAY_BEARER_UNSET, which is not set\n    fix: export GATEWAY_BEARER_UNSET=…  # the Authorization header of gateway"
    )
  })

  it("doctor's fix for a clis.codex.bin that is not a program is the setting, not an install", async () => {
    const { config, fallback } = setUp({ a: "answer" })
    const document = JSON.parse(readFileSync(config, "utf8"))
    writeFileSync(config, JSON.stringify({ ...document, clis: { codex: { bin: "/no/such/codex" } } }))
    const ran = await fallback("doctor")
    expect(ran.code).toBe(1)
    expect(ran.out).toContain(
      `✗ codex            /no/such/codex (clis.codex.bin) is not an executable file\n    fix: set clis.codex.bin in ${config} to the codex program (\`command -v codex\` shows it), or remove it to use codex on PATH`
    )
  })
})
