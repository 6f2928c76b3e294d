/** `fallback serve` run from the bundle as a person runs it, for as long as a test needs it. */
import { spawn } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const bundle = join(fileURLToPath(new URL("..", import.meta.url)), "packages", "cli", "dist", "fallback.cjs")

/** A `fallback serve` process: its URL once it listens, what it printed so far, and how to stop it. */
export interface Serving {
  readonly url: string
  readonly out: () => string
  readonly err: () => string
  /** The JSON lines it printed on stdout so far. */
  readonly lines: () => ReadonlyArray<Record<string, unknown>>
  /** SIGTERM (or the signal given), then what it printed and how it ended. */
  readonly stop: (
    signal?: NodeJS.Signals
  ) => Promise<{ readonly code: number | null; readonly out: string; readonly err: string }>
}

/** What a run that ends by itself gave. */
export interface Ended {
  readonly code: number | null
  readonly out: string
  readonly err: string
}

/** A config file of its own, in a folder of its own. */
export const configFile = (config: unknown): string => {
  const file = join(mkdtempSync(join(tmpdir(), "fallback-serve-")), "config.json")
  writeFileSync(file, JSON.stringify(config))
  return file
}

const children = new Set<ReturnType<typeof spawn>>()

/** Ends every serve a test left running (one that failed before it stopped its own). */
export const stopAll = () => {
  for (const child of children) child.kill("SIGKILL")
  children.clear()
}

const started = (config: string, env: Readonly<Record<string, string>>, args: ReadonlyArray<string>) => {
  const child = spawn(process.execPath, [bundle, "serve", ...args], {
    env: { PATH: process.env.PATH ?? "", HOME: tmpdir(), FALLBACK_CONFIG: config, ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  children.add(child)
  child.on("close", () => children.delete(child))
  return child
}

/** Starts `fallback serve ARGS…` and resolves once it says where it listens. */
export const serve = (config: string, env: Readonly<Record<string, string>>, args: ReadonlyArray<string>) =>
  new Promise<Serving>((resolve, reject) => {
    const child = started(config, env, args)
    let [out, err] = ["", ""]
    const ended = new Promise<Ended>((done) => child.on("close", (code) => done({ code, out, err })))
    const lines = () =>
      out.split("\n").filter((line) => line.startsWith("{")).map((line) => JSON.parse(line) as Record<string, unknown>)
    child.stderr.on("data", (chunk) => (err += chunk))
    child.stdout.on("data", (chunk) => {
      out += chunk
      // the start line: JSON with --json, else text
      const url = lines().find((line) => line.type === "listening")?.url ??
        /^fallback serve: listening on (http:\/\/\S+?);/m.exec(out)?.[1]
      if (url !== undefined) {
        resolve({
          url: String(url),
          out: () => out,
          err: () => err,
          lines,
          stop: (signal = "SIGTERM") => (child.kill(signal), ended)
        })
      }
    })
    void ended.then((ran) => reject(new Error(`fallback serve ended before it listened: ${JSON.stringify(ran)}`)))
  })

/** Runs `fallback serve ARGS…` where it is expected to end by itself (a refusal). */
export const serveEnds = (config: string, env: Readonly<Record<string, string>>, args: ReadonlyArray<string>) =>
  new Promise<Ended>((resolve) => {
    const child = started(config, env, args)
    let [out, err] = ["", ""]
    child.stdout.on("data", (chunk) => (out += chunk))
    child.stderr.on("data", (chunk) => (err += chunk))
    child.on("close", (code) => resolve({ code, out, err }))
  })

/** The keys the config files of the serve tests read (the providers' own, the two accounts', OpenAI's). */
export const keys = {
  ANTHROPIC_API_KEY: "sk-ant-api03-DEFAULTsecretsecretsecret000",
  WORK_KEY: "sk-ant-api03-WORKsecretsecretsecret0001",
  SPARE_KEY: "sk-ant-api03-SPAREsecretsecretsecret0002",
  OPENAI_KEY: "sk-proj-OPENAIsecretsecretsecret0003"
}

/** Anthropic's two accounts, `work` and `spare`, and its provider (claude-x) beside an OpenAI-compatible one (gpt-x), on the mock at `url`. */
export const places = (url: string) => ({
  accounts: {
    anthropic: [
      { name: "work", env: { ANTHROPIC_API_KEY: { fromEnv: "WORK_KEY" } } },
      { name: "spare", env: { ANTHROPIC_API_KEY: { fromEnv: "SPARE_KEY" } } }
    ]
  },
  providers: {
    anthropic: {
      kind: "anthropic-messages",
      baseUrl: url,
      key: { fromEnv: "ANTHROPIC_API_KEY" },
      models: [{ name: "claude-x" }]
    },
    openai: {
      kind: "openai-compatible",
      baseUrl: `${url}/v1`,
      key: { fromEnv: "OPENAI_KEY" },
      models: [{ name: "gpt-x" }]
    }
  }
})
