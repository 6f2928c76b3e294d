/**
 * Records the requests the real agent CLIs send, for the gateway's wire readers to be tested on:
 * each CLI is pointed at a recording proxy in front of the testkit MockProvider (scripted to answer
 * the first turn with a call of one of the CLI's own tools, so the next request carries its result),
 * and every request's method, path, headers and body is written under test/fixtures/wire/<wire>/ as
 * `<cli>-<what>.json`, keys and home folders replaced by placeholders.
 *
 *   npx tsx test/agents/install.ts && npx tsx --conditions=@fallback/source test/agents/record-wire.ts
 */
import * as MockProvider from "@fallback/testkit/MockProvider"
import * as fs from "node:fs"
import * as Http from "node:http"
import type * as Net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { pinned } from "./clis.js"
import { claude, codex, opencode, type Ran } from "./run.js"

const repository = path.resolve(import.meta.dirname, "../..")
const fixtures = path.join(repository, "test", "fixtures", "wire")
// outside the repository: the CLIs read the instructions (CLAUDE.md, AGENTS.md) and git state of the folders above them
const work = fs.mkdtempSync(path.join(os.tmpdir(), "record-wire-"))
/** The fake key every CLI is given, shaped like a real one. */
const key = "sk-ant-api03-recordrecordrecordrecord0000"

/** One request as a CLI sent it. */
interface Seen {
  readonly method: string
  readonly path: string
  readonly headers: Record<string, string | ReadonlyArray<string> | undefined>
  readonly body: unknown
}

let seen: Array<Seen> = []

const mock = await MockProvider.start({ bodies: true })

/** Forwards to the mock, keeping each request; answers count_tokens itself (the mock has no such route). */
const proxy = Http.createServer((request, response) => {
  const parts: Array<Buffer> = []
  request.on("data", (part: Buffer) => parts.push(part))
  request.on("end", () => {
    const text = Buffer.concat(parts).toString("utf8")
    let body: unknown = text
    try {
      body = JSON.parse(text)
    } catch {
      // kept as text
    }
    seen.push({ method: request.method ?? "GET", path: request.url ?? "/", headers: { ...request.headers }, body })
    if (request.url?.startsWith("/v1/messages/count_tokens")) {
      response.writeHead(200, { "content-type": "application/json" })
      response.end(JSON.stringify({ input_tokens: Math.ceil(text.length / 4) }))
      return
    }
    const upstream = Http.request(`${mock.url}${request.url}`, {
      method: request.method,
      headers: { ...request.headers, host: new URL(mock.url).host }
    }, (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers)
      answer.pipe(response)
    })
    upstream.on("error", () => response.destroy())
    upstream.end(text)
  })
})
await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve))
const url = `http://127.0.0.1:${(proxy.address() as Net.AddressInfo).port}`

const secretHeaders = new Set(["x-api-key", "authorization", "cookie", "proxy-authorization", "x-goog-api-key"])

/** Keys, tokens, home folders and ports replaced by placeholders. */
const clean = (value: Seen): Seen => {
  const headers = Object.fromEntries(
    Object.entries(value.headers).map(([name, header]) => [
      name,
      secretHeaders.has(name) ? (name === "authorization" ? "Bearer <key>" : "<key>") : header
    ])
  )
  const text = JSON.stringify({ ...value, headers }, null, 2)
    .split(key).join("<key>")
    .replace(/\bsk-[A-Za-z0-9_-]{16,}/g, "<key>")
    .replace(/\b(eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]+)/g, "<token>")
    .split(work).join("$HOME")
    .split(repository).join("$REPO")
    .replace(/127\.0\.0\.1:\d+/g, "127.0.0.1:PORT")
    .replace(/(\\*"(?:device_id|installation_id|x-codex-installation-id)\\*":\s*\\*")[0-9a-f-]{16,}/g, "$1<device-id>")
  return JSON.parse(text)
}

const write = (wire: string, name: string, value: Seen) => {
  fs.mkdirSync(path.join(fixtures, wire), { recursive: true })
  fs.writeFileSync(path.join(fixtures, wire, `${name}.json`), JSON.stringify(clean(value), null, 2) + "\n")
  process.stdout.write(`  ${wire}/${name}.json  ${value.method} ${value.path}\n`)
}

const folder = (name: string) => {
  const made = path.join(work, name)
  fs.mkdirSync(made, { recursive: true })
  fs.writeFileSync(path.join(made, "notes.txt"), "The meeting is at noon.\n")
  return made
}

const ok = (cli: string, ran: Ran) => {
  if (ran.code !== 0) {
    process.stdout.write(`  ${cli} exited ${ran.code} ${ran.signal ?? ""}: ${ran.err.slice(0, 400)}\n`)
  }
}

const version = (cli: string) => pinned.find((pin) => pin.cli === cli)!.version

const modelOf = (request: Seen): string =>
  typeof (request.body as { model?: unknown })?.model === "string" ? (request.body as { model: string }).model : ""

/** Runs a turn with the log cleared and returns what was sent. */
const turn = async (cli: string, go: () => Promise<Ran>): Promise<{ ran: Ran; sent: Array<Seen> }> => {
  seen = []
  mock.reset()
  const ran = await go()
  ok(cli, ran)
  return { ran, sent: seen }
}

/** Writes the main requests (first turn, after the tool) and the rest by what they are. */
const keep = (
  wire: string,
  cli: string,
  sent: ReadonlyArray<Seen>,
  main: (request: Seen) => boolean,
  prefix: string
) => {
  const mains = sent.filter(main)
  const names = prefix === "" ? ["first-turn", "tool-result"] : [prefix, `${prefix}-tool-result`]
  mains.forEach((request, index) =>
    write(wire, `${cli}-${names[index] ?? `${prefix || "turn"}-${index + 1}`}`, request)
  )
  const others = sent.filter((request) => !main(request))
  others.forEach((request, index) => {
    const what = request.path.includes("count_tokens")
      ? "count-tokens"
      : request.method === "POST"
      ? `side-${modelOf(request).replace(/[^a-z0-9.-]/gi, "_")}`
      : `side-${request.method.toLowerCase()}-${request.path.split("?")[0]!.split("/").at(-1)}`
    write(
      request.path.includes("/messages") ? "anthropic-messages" : wire,
      `${cli}-${prefix === "" ? "" : `${prefix}-`}${what}-${index + 1}`,
      request
    )
  })
}

process.stdout.write(`recording in ${work}\n`)

// claude: its non-essential traffic left on, so its small side calls are sent too
{
  const cwd = folder("claude")
  const file = path.join(cwd, "notes.txt")
  const sonnet = "claude-sonnet-4-5"
  const first = await turn("claude", async () => {
    mock.script([{
      route: "anthropic",
      model: sonnet,
      fault: "answer",
      tool: { name: "Read", input: { file_path: file } },
      times: 1
    }])
    return claude("Read notes.txt and tell me when the meeting is.", { cwd, baseUrl: url, key, quiet: false })
  })
  const isMain = (request: Seen) => request.path.startsWith("/v1/messages?") || request.path === "/v1/messages"
  const main = (request: Seen) => isMain(request) && modelOf(request) === sonnet
  keep("anthropic-messages", "claude", first.sent, main, "")
  const session = first.ran.events.find((event) => event.type === "system")?.session_id as string | undefined
  if (session !== undefined) {
    const again = await turn(
      "claude",
      () => claude("And where?", { cwd, baseUrl: url, key, quiet: false, extra: ["--resume", session] })
    )
    keep("anthropic-messages", "claude", again.sent, main, "resume")
  }
  // a turn that thinks, then its next turn, which carries the signed thinking block back
  const thought = await turn("claude", async () => {
    mock.script([{ route: "anthropic", model: sonnet, fault: "think", times: 1 }])
    return claude("Think, then say hi.", { cwd, baseUrl: url, key, extra: ["--effort", "high"] })
  })
  keep("anthropic-messages", "claude", thought.sent, main, "thinking")
  const thinking = thought.ran.events.find((event) => event.type === "system")?.session_id as string | undefined
  if (thinking !== undefined) {
    const next = await turn("claude", () => claude("Again.", { cwd, baseUrl: url, key, extra: ["--resume", thinking] }))
    keep("anthropic-messages", "claude", next.sent, main, "thinking-resume")
  }
}

// codex: the Responses API, its shell tool called once
{
  const cwd = folder("codex")
  const first = await turn("codex", () => {
    mock.script([{
      route: "responses",
      fault: "answer",
      tool: { name: "exec_command", input: { cmd: "cat notes.txt" } },
      times: 1
    }])
    return codex("Read notes.txt and tell me when the meeting is.", { cwd, baseUrl: `${url}/v1`, key })
  })
  const main = (request: Seen) => request.path.endsWith("/responses")
  keep("openai-responses", "codex", first.sent, main, "")
  const thread = first.ran.events.find((event) => event.type === "thread.started")?.thread_id as string | undefined
  if (thread !== undefined) {
    const again = await turn("codex", () => codex("And where?", { cwd, baseUrl: `${url}/v1`, key, resume: thread }))
    keep("openai-responses", "codex", again.sent, main, "resume")
  }
}

// opencode: an OpenAI-compatible provider (Chat Completions), its read tool called once; its title call on mock-small
{
  const cwd = folder("opencode")
  const first = await turn("opencode", () => {
    mock.script([{
      route: "chat",
      model: "mock-model",
      fault: "answer",
      tool: { name: "read", input: { filePath: path.join(cwd, "notes.txt") } },
      times: 1
    }])
    return opencode("Read notes.txt and tell me when the meeting is.", { cwd, baseUrl: `${url}/v1`, key })
  })
  const main = (request: Seen) => request.path.endsWith("/chat/completions") && modelOf(request) === "mock-model"
  keep("openai-chat", "opencode", first.sent, main, "")
  const session = first.ran.events.find((event) => typeof event.sessionID === "string")?.sessionID as string | undefined
  if (session !== undefined) {
    const again = await turn("opencode", () => opencode("And where?", { cwd, baseUrl: `${url}/v1`, key, session }))
    keep("openai-chat", "opencode", again.sent, main, "resume")
  }
}

fs.writeFileSync(
  path.join(fixtures, "versions.json"),
  JSON.stringify(Object.fromEntries(["claude", "codex", "opencode"].map((cli) => [cli, version(cli)])), null, 2) + "\n"
)
const closed = new Promise<void>((resolve) => proxy.close(() => resolve()))
proxy.closeAllConnections()
await closed
await mock.stop()
if (process.env.FALLBACK_AGENTS_KEEP === undefined) fs.rmSync(work, { recursive: true, force: true })
