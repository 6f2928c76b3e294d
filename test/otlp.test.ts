/**
 * `fallback run` exporting over OTLP/HTTP: the installed command, as a real process, against the
 * loopback mock provider, with OTEL_EXPORTER_OTLP_ENDPOINT at a loopback OTLP receiver this test
 * starts, which decodes what the real exporter sends.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as MockProvider from "@fallback/testkit/MockProvider"
import { spawn } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))
const bin = join(root, "node_modules", ".bin", "fallback")

// The bin runs the bundle test/support/bin.ts builds once for every end-to-end file.

interface Received {
  readonly path: string
  readonly headers: Http.IncomingHttpHeaders
  readonly body: string
}

/** An OTLP/HTTP receiver on 127.0.0.1: it keeps every request and answers 200 with `{}`. */
const receiver = () =>
  new Promise<{ readonly url: string; readonly received: Array<Received>; readonly close: () => void }>((resolve) => {
    const received: Array<Received> = []
    const server = Http.createServer((request, response) => {
      let body = ""
      request.setEncoding("utf8")
      request.on("data", (chunk: string) => (body += chunk))
      request.on("end", () => {
        received.push({ path: request.url ?? "", headers: request.headers, body })
        response.writeHead(200, { "content-type": "application/json" })
        response.end("{}")
      })
    })
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number }
      resolve({ url: `http://127.0.0.1:${port}`, received, close: () => server.close() })
    })
  })

/**
 * The 18 key shapes of issue 23, each as the secret part a collector must never see: two are
 * held by the run (the provider's key, and a 4-character header value read from the environment),
 * the others known by their shape. Every one is echoed by a hostile provider in its response
 * headers and body.
 */
const nonce = Math.random().toString(36).slice(2, 8).replace(/[^a-z0-9]/g, "q").padEnd(6, "q")
const heldKey = `canary-held-${nonce}`
const shortKey = `q${nonce.slice(0, 2)}Z`
const shapes: Record<string, readonly [echoed: string, secret: string]> = {
  held: [heldKey, heldKey],
  short: [shortKey, shortKey],
  openai: [`sk-proj-${nonce}AbCdEfGh0123456789`, `${nonce}AbCdEfGh0123456789`],
  openaiPlain: [`sk-${nonce}AbCdEfGh0123456789xyz`, `${nonce}AbCdEfGh0123456789xyz`],
  anthropic: [`sk-ant-api03-${nonce}AbCdEfGh0123456789`, `api03-${nonce}AbCdEfGh0123456789`],
  google: [`AIzaSy${nonce}AbCdEfGh0123456789abc`, `Sy${nonce}AbCdEfGh0123456789abc`],
  github: [`ghp_${nonce}AbCdEfGh0123456789abcdefgh`, `${nonce}AbCdEfGh0123456789abcdefgh`],
  githubPat: [`github_pat_11${nonce}AbCdEfGh0123456789`, `11${nonce}AbCdEfGh0123456789`],
  slack: [`xoxb-1234-${nonce}AbCdEfGh0123`, `1234-${nonce}AbCdEfGh0123`],
  jwt: [
    `eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiI${nonce}In0.${nonce}AbCdEfGh0123456789`,
    `eyJzdWIiOiI${nonce}In0.${nonce}AbCdEfGh0123456789`
  ],
  aws: [`AKIA${nonce.toUpperCase()}ABCDEFGHIJ`, `${nonce.toUpperCase()}ABCDEFGHIJ`],
  bearer: [`Bearer ${nonce}AbCdEfGh0123456789.tok`, `${nonce}AbCdEfGh0123456789.tok`],
  urlPassword: [`https://user:pw-${nonce}-hidden@proxy.example/v1`, `pw-${nonce}-hidden`],
  groq: [`gsk_${nonce}AbCdEfGh0123456789`, `${nonce}AbCdEfGh0123456789`],
  huggingface: [`hf_${nonce}AbCdEfGh0123456789x`, `${nonce}AbCdEfGh0123456789x`],
  xai: [`xai-${nonce}AbCdEfGh0123456789y`, `${nonce}AbCdEfGh0123456789y`],
  gitlab: [`glpat-${nonce}AbCdEfGh0123456789z`, `${nonce}AbCdEfGh0123456789z`],
  stripe: [`sk_live_${nonce}AbCdEfGh0123456789w`, `${nonce}AbCdEfGh0123456789w`]
}

/** Answers every request 401, echoing every shape in its own header, in `www-authenticate` and in the body. */
const hostile = () =>
  new Promise<{ readonly url: string; readonly close: () => void }>((resolve) => {
    const server = Http.createServer((request, response) => {
      request.resume()
      request.on("end", () => {
        const echoed = Object.values(shapes).map(([value]) => value)
        response.writeHead(401, {
          "content-type": "application/json",
          "x-echo-key": shortKey,
          "www-authenticate": `Bearer realm="api", error="invalid_token", key="${heldKey}"`,
          ...Object.fromEntries(
            Object.entries(shapes).map(([name, [value]]) => [`x-echo-${name.toLowerCase()}`, value])
          )
        })
        response.end(
          JSON.stringify({ error: { type: "authentication_error", message: `bad key ${echoed.join(" ")}` } })
        )
      })
    })
    server.listen(0, "127.0.0.1", () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        close: () => server.close()
      }))
  })

const running = (env: Record<string, string>, ...args: Array<string>) =>
  new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
    const child = spawn(bin, args, {
      env: { PATH: process.env.PATH ?? "", HOME: tmpdir(), ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let [out, err] = ["", ""]
    child.stdout.on("data", (chunk) => (out += chunk))
    child.stderr.on("data", (chunk) => (err += chunk))
    child.on("close", (code) => resolve({ code, out, err }))
  })

/** An OTLP attribute list as a record. */
type Value = { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean }
const record = (attributes: ReadonlyArray<{ key: string; value: Value }> = []) =>
  Object.fromEntries(
    attributes.map((
      { key, value }
    ) => [key, value.stringValue ?? value.intValue ?? value.doubleValue ?? value.boolValue])
  )

interface Span {
  readonly name: string
  readonly kind: number
  readonly spanId: string
  readonly parentSpanId?: string
  readonly traceId: string
  readonly attributes: Record<string, unknown>
  readonly events: ReadonlyArray<{ readonly name: string; readonly attributes: Record<string, unknown> }>
}

const spansOf = (received: ReadonlyArray<Received>) =>
  received.filter((r) => r.path === "/v1/traces").flatMap((r) =>
    JSON.parse(r.body).resourceSpans.flatMap((resource: any) =>
      resource.scopeSpans.flatMap((scope: any) =>
        scope.spans.map((span: any): Span & { readonly resource: Record<string, unknown> } => ({
          name: span.name,
          kind: span.kind,
          spanId: span.spanId,
          parentSpanId: span.parentSpanId,
          traceId: span.traceId,
          attributes: record(span.attributes),
          events: (span.events ?? []).map((event: any) => ({ name: event.name, attributes: record(event.attributes) })),
          resource: record(resource.resource.attributes)
        }))
      )
    )
  )

describe("fallback run with OTEL_EXPORTER_OTLP_ENDPOINT set", () => {
  let mock: MockProvider.Running
  beforeAll(async () => {
    mock = await MockProvider.start()
  })
  afterAll(() => mock.stop())

  it("exports the turn's spans, nested, with their attributes and no secret, and metrics and logs", async () => {
    const otlp = await receiver()
    try {
      const key = "sk-ant-api03-otlpTESTkey0123456789abcdef"
      const collectorToken = "collector-token-0123456789"
      mock.reset()
      mock.script([
        { fault: "unauthorized", key },
        { fault: "answer", model: "qwen3:8b", text: "hello from qwen" }
      ])
      const config = join(mkdtempSync(join(tmpdir(), "fallback-otlp-")), "config.json")
      writeFileSync(
        config,
        JSON.stringify({
          steps: { "anthropic@work/claude-opus-5": { to: "local/qwen3:8b" } },
          accounts: { anthropic: [{ name: "work", env: { ANTHROPIC_API_KEY: { fromEnv: "KEY_WORK" } } }] },
          providers: {
            anthropic: { kind: "anthropic-messages", baseUrl: mock.url, key: { fromEnv: "ANTHROPIC_API_KEY" } },
            local: { kind: "openai-compatible", baseUrl: `${mock.url}/v1` }
          }
        })
      )
      const ran = await running(
        {
          FALLBACK_CONFIG: config,
          KEY_WORK: key,
          OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
          OTEL_SERVICE_NAME: "fallback-under-test",
          OTEL_EXPORTER_OTLP_HEADERS: `authorization=Bearer%20${collectorToken}`
        },
        "run",
        "anthropic@work/claude-opus-5",
        "Say hello"
      )
      // what a person sees is unchanged: the answer on stdout, the notice (one line) on stderr
      expect({ code: ran.code, out: ran.out }).toEqual({ code: 0, out: "hello from qwen\n" })
      expect(ran.err).toMatch(/^[^\n]*refused the credentials[^\n]*; carrying on at local\/qwen3:8b\n$/)

      const paths = new Set(otlp.received.map((r) => r.path))
      expect(paths).toEqual(new Set(["/v1/traces", "/v1/metrics", "/v1/logs"]))
      for (const r of otlp.received) {
        expect(r.headers["content-type"]).toBe("application/json")
        expect(r.headers.authorization).toBe(`Bearer ${collectorToken}`)
      }

      const spans = spansOf(otlp.received)
      const turn = spans.find((span) => span.name === "invoke_agent fallback")!
      expect(turn.resource["service.name"]).toBe("fallback-under-test")
      expect(turn.attributes).toMatchObject({
        "gen_ai.operation.name": "invoke_agent",
        "fallback.place": "anthropic@work/claude-opus-5",
        "fallback.account": "work",
        "fallback.outcome": "answered",
        "fallback.answered.place": "local/qwen3:8b"
      })
      expect(turn.events.map((event: Span["events"][number]) => [event.name, event.attributes["fallback.move.by"]]))
        .toEqual([
          ["fallback.move", "place"]
        ])
      const attempts = spans.filter((span) => span.parentSpanId === turn.spanId && span.name.startsWith("chat "))
      expect(attempts.map((span) => [span.name, span.attributes["fallback.outcome"], span.attributes["error.type"]]))
        .toEqual([
          ["chat claude-opus-5", "AuthRefused", "AuthRefused"],
          ["chat qwen3:8b", "answered", undefined]
        ])
      expect(attempts.every((span) => span.traceId === turn.traceId)).toBe(true)
      expect(attempts[0]!.attributes).toMatchObject({
        "gen_ai.provider.name": "anthropic",
        "gen_ai.request.model": "claude-opus-5",
        "fallback.account": "work",
        "fallback.attempt": 1,
        "fallback.move.by": "start"
      })
      expect(attempts[1]!.attributes).toMatchObject({ "fallback.attempt": 2, "fallback.move.by": "place" })
      // each request is an HTTP client span inside its attempt
      for (const attempt of attempts) {
        const inside = spans.filter((span) => span.parentSpanId === attempt.spanId).map((span) => span.name)
        expect(inside.filter((name) => name.startsWith("http.client"))).toEqual(["http.client POST"])
      }

      const metrics = otlp.received.filter((r) => r.path === "/v1/metrics").map((r) => r.body).join("\n")
      expect(metrics).toContain("fallback.attempts")
      expect(metrics).toContain("fallback.turn.duration")
      const logs = otlp.received.filter((r) => r.path === "/v1/logs").map((r) => r.body).join("\n")
      expect(logs).toContain("carrying on at local/qwen3:8b")

      // no secret anywhere in what was exported: not the provider's key, not the collector's token
      for (const r of otlp.received) {
        expect(r.body).not.toContain(key.slice("sk-ant-".length))
        expect(r.body).not.toContain(collectorToken)
      }
    } finally {
      otlp.close()
    }
  })

  it("without the variable, nothing is exported and the receiver hears nothing", async () => {
    const otlp = await receiver()
    try {
      mock.reset()
      mock.script([{ fault: "answer", model: "qwen3:8b", text: "plain" }])
      const config = join(mkdtempSync(join(tmpdir(), "fallback-otlp-")), "config.json")
      writeFileSync(
        config,
        JSON.stringify({ providers: { local: { kind: "openai-compatible", baseUrl: `${mock.url}/v1` } } })
      )
      const ran = await running({ FALLBACK_CONFIG: config, OTEL_SERVICE_NAME: "unused" }, "run", "local/qwen3:8b", "hi")
      expect(ran).toEqual({ code: 0, out: "plain\n", err: "" })
      expect(otlp.received).toEqual([])
    } finally {
      otlp.close()
    }
  })
  // issue 23: a key a provider echoes in its response headers or body reaches no collector
  it.each(["http/json", "http/protobuf"])(
    "over %s, none of 18 key shapes echoed by a provider is exported",
    async (protocol) => {
      const otlp = await receiver()
      const provider = await hostile()
      try {
        const config = join(mkdtempSync(join(tmpdir(), "fallback-otlp-")), "config.json")
        writeFileSync(
          config,
          JSON.stringify({
            providers: {
              hostile: {
                kind: "openai-compatible",
                baseUrl: `${provider.url}/v1`,
                key: { fromEnv: "HOSTILE_KEY" },
                headers: { "x-tenant": { fromEnv: "HOSTILE_TENANT" } }
              }
            }
          })
        )
        const ran = await running(
          {
            FALLBACK_CONFIG: config,
            HOSTILE_KEY: heldKey,
            HOSTILE_TENANT: shortKey,
            OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
            OTEL_EXPORTER_OTLP_PROTOCOL: protocol
          },
          "run",
          "hostile/m",
          "Say hello"
        )
        expect(ran.code).not.toBe(0)
        expect(new Set(otlp.received.map((r) => r.path))).toEqual(new Set(["/v1/traces", "/v1/metrics", "/v1/logs"]))
        const exported = otlp.received.map((r) => r.body).join("\n")
        const leaks = Object.entries(shapes).flatMap(([name, [, secret]]) => exported.includes(secret) ? [name] : [])
        expect(leaks).toEqual([])
        // the provider's reply is in the spans still: its status, and the headers that say how a request went
        expect(exported).toContain("http.response.header.content-type")
        expect(exported).not.toContain("http.response.header.x-echo")
        expect(exported).not.toContain("http.response.header.www-authenticate")
        expect(`${ran.out}${ran.err}`).not.toContain(heldKey)
      } finally {
        otlp.close()
        provider.close()
      }
    }
  )
})
