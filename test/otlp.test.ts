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
})
