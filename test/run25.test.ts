// Issue 25 at the command line: `fallback run` over an OpenAI-compatible provider (the testkit
// mock, playing each fault by model name), as the bundle runs as a real process.
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as MockProvider from "@fallback/testkit/MockProvider"
import { Schema } from "effect"

import * as RunOutput from "../packages/cli/src/RunOutput.js"
import { fallback } from "./support/fallback.js"

const lines = (out: string) =>
  out.trim().split("\n").map((line) =>
    Schema.decodeUnknownSync(RunOutput.Line, { onExcessProperty: "error" })(JSON.parse(line))
  )

const textOf = (out: string) => lines(out).flatMap((line) => line.type === "text" ? [line.text] : []).join("")

describe("fallback run, issue 25: whole or streamed, limits per kind, the api preset", () => {
  let mock: MockProvider.Running
  beforeAll(async () => {
    mock = await MockProvider.start()
  })
  afterAll(() => mock.stop())

  const configWith = (
    steps: Record<string, string>,
    options: { readonly continues?: boolean; readonly run?: unknown } = {}
  ) => {
    const config = join(mkdtempSync(join(tmpdir(), "fallback-run25-")), "config.json")
    writeFileSync(
      config,
      JSON.stringify({
        steps: Object.fromEntries(Object.entries(steps).map(([from, to]) => [from, { to }])),
        providers: {
          local: {
            kind: "openai-compatible",
            baseUrl: `${mock.url}/v1`,
            ...(options.continues === undefined ? {} : { continues: options.continues })
          }
        },
        ...(options.run === undefined ? {} : { run: options.run })
      })
    )
    return config
  }
  const seen = async () =>
    (await mock.requests()).log.map((r) => ({ model: r.model, ended: r.ended, prefill: r.prefill }))

  it("--json answers whole: a stream cut mid-answer moves on unseen, and the outcome says who answered, the usage and the moves", async () => {
    mock.reset()
    mock.script([{ fault: "answer", model: "gpt-y", text: "the whole answer from y" }])
    const config = configWith({ "local/gpt-x-fault-cut": "local/gpt-y" })
    const ran = await fallback(config, "run", "local/gpt-x-fault-cut", "--json", "Say hello")
    expect(ran.code).toBe(0)
    // nothing of the cut answer: only the next place's, whole
    expect(textOf(ran.out)).toBe("the whole answer from y")
    const move = { from: "local/gpt-x-fault-cut", to: "local/gpt-y", by: "place", kind: "ConnectionLost" }
    expect(lines(ran.out).at(-1)).toEqual({
      type: "outcome",
      ok: true,
      status: 0,
      place: "local/gpt-y",
      model: "gpt-y",
      usage: { input: expect.any(Number), output: expect.any(Number) },
      moves: [move]
    })
    const log = await seen()
    expect(log.at(-1)).toMatchObject({ model: "gpt-y", prefill: undefined })
    expect(log.filter((r) => r.model === "gpt-x-fault-cut").every((r) => r.ended === "cut")).toBe(true)
  })

  it("--whole prints the next place's whole answer, never the part a cut stream sent", async () => {
    mock.reset()
    mock.script([{ fault: "answer", model: "gpt-y", text: "the whole answer from y" }])
    const config = configWith({ "local/gpt-x-fault-cut": "local/gpt-y" })
    const ran = await fallback(config, "run", "local/gpt-x-fault-cut", "--whole", "Say hello")
    expect(ran.code).toBe(0)
    expect(ran.out).toBe("the whole answer from y\n")
    expect(ran.err).toContain("carrying on at local/gpt-y")
  })

  it("streamed, a cut after content ends with exit 24: the place, what was printed, the failure", async () => {
    mock.reset()
    const config = configWith({ "local/gpt-x-fault-cut": "local/gpt-y" })
    const ran = await fallback(config, "run", "local/gpt-x-fault-cut", "Say hello")
    expect(ran.code).toBe(24)
    // the part that reached the terminal stays, its line ended
    expect(ran.out).toMatch(/^mock answer.*\n$/)
    expect(ran.err.trim().split("\n").at(-1)).toMatch(
      /^fallback: local\/gpt-x-fault-cut failed after \d+ characters of its answer reached you: local lost the connection.*what was printed above is only part of the answer \(exit 24\)/
    )
    expect((await fallback(config, "run", "--help")).out).toContain("   24  Cut")
  })

  it("streamed, a cut continues at the next place where it continues: nothing replayed", async () => {
    mock.reset()
    const config = configWith({ "local/gpt-x-fault-cut": "local/gpt-y" }, { continues: true })
    const ran = await fallback(config, "run", "local/gpt-x-fault-cut", "Say hello")
    expect(ran).toMatchObject({ code: 0, out: "mock answer from gpt-y\n" })
    const log = await seen()
    expect(log.at(-1)).toMatchObject({ model: "gpt-y", prefill: expect.stringMatching(/^mock answer/) })
  })

  it("streamed, a continuation the next place refuses never masks the cut: exit 24 with both", async () => {
    mock.reset()
    const config = configWith({ "local/gpt-x-fault-cut": "local/gpt-y-fault-no-prefill" }, { continues: true })
    const ran = await fallback(config, "run", "local/gpt-x-fault-cut", "Say hello")
    expect(ran.code).toBe(24)
    const told = ran.err.trim().split("\n").at(-1)!
    expect(told).toMatch(/^fallback: local\/gpt-x-fault-cut failed after \d+ characters.*lost the connection/)
    expect(told).toContain("the next place did not continue it")
  })

  it("a malformed event is a notice line, and the answer completes", async () => {
    mock.reset()
    const config = configWith({})
    const ran = await fallback(config, "run", "local/gpt-x-fault-malformed-event", "--json", "Say hello")
    expect(ran.code).toBe(0)
    const written = lines(ran.out)
    expect(written).toContainEqual(expect.objectContaining({ type: "notice", notice: "Malformed", skipped: 1 }))
    expect(written.at(-1)).toMatchObject({ ok: true, place: "local/gpt-x-fault-malformed-event", moves: [] })
  })

  it("--stall bounds a streamed answer that stopped: it ends as a Cut at the limit", async () => {
    mock.reset()
    const config = configWith({ "local/gpt-x-fault-stall": "local/gpt-y" })
    const ran = await fallback(
      config,
      "run",
      "local/gpt-x-fault-stall",
      "--stall",
      "1s",
      "--deadline",
      "20s",
      "Say hello"
    )
    expect(ran.code).toBe(24)
    expect(ran.err).toContain("it ends at 1s with what it sent")
    expect(ran.err.trim().split("\n").at(-1)).toMatch(/^fallback: local\/gpt-x-fault-stall failed after \d+ characters/)
  })

  it("--whole --stall: a stalled stream moves on unseen within the limit", async () => {
    mock.reset()
    const config = configWith({ "local/gpt-x-fault-stall": "local/gpt-y" })
    const ran = await fallback(
      config,
      "run",
      "local/gpt-x-fault-stall",
      "--whole",
      "--stall",
      "1s",
      "--deadline",
      "20s",
      "Say hello"
    )
    expect(ran).toMatchObject({ code: 0, out: "mock answer from gpt-y\n" })
  }, 40_000)

  it("run.limits.http.firstByte: a silent route moves on, asked once", async () => {
    mock.reset()
    const silent = configWith({ "local/gpt-x-fault-hang": "local/gpt-y" }, {
      run: { limits: { http: { firstByte: 1 } } }
    })
    const moved = await fallback(silent, "run", "local/gpt-x-fault-hang", "--json", "Say hello")
    expect(moved.code).toBe(0)
    expect(lines(moved.out).at(-1)).toMatchObject({
      place: "local/gpt-y",
      moves: [{ from: "local/gpt-x-fault-hang", kind: "Timeout" }]
    })
    expect((await seen()).filter((r) => r.model === "gpt-x-fault-hang")).toHaveLength(1)
  })

  it("refuses limits it cannot use, saying what to write", async () => {
    const config = configWith({})
    expect(await fallback(config, "run", "local/a", "--stall", "20m", "--deadline", "5m", "hi")).toEqual({
      code: 1,
      out: "",
      err:
        "fallback: --stall 20m is longer than the turn's deadline (5m), which would end the turn first; give a shorter --stall or a longer --deadline\n"
    })
    expect((await fallback(config, "run", "local/a", "--stall", "soon", "hi")).err).toContain(
      "\"soon\" is not a time"
    )
    const negative = configWith({}, { run: { limits: { http: { stall: -1 } } } })
    const refused = await fallback(negative, "run", "local/a", "hi")
    expect(refused.code).toBe(1)
    expect(refused.err).toContain("run.limits.http.stall")
    expect(refused.err).toContain("seconds, 0 or more")
    const typo = configWith({}, { run: { limits: { htp: { stall: 1 } } } })
    expect((await fallback(typo, "run", "local/a", "hi")).err).toContain("did you mean http")
    const long = configWith({}, { run: { deadline: 60, limits: { cli: { firstByte: 120 } } } })
    expect((await fallback(long, "run", "local/a", "hi")).err).toContain(
      "run.limits.cli.firstByte 2m is longer than the turn's deadline (1m)"
    )
  })

  it("--preset api and run.preset \"api\" run a turn; the help says the new flags", async () => {
    mock.reset()
    mock.script([{ fault: "answer", model: "gpt-y", text: "from y" }])
    const config = configWith({ "local/gpt-x-fault-cut": "local/gpt-y" })
    expect(await fallback(config, "run", "local/gpt-x-fault-cut", "--preset", "api", "--whole", "hi")).toMatchObject({
      code: 0,
      out: "from y\n"
    })
    const chosen = configWith({ "local/gpt-x-fault-cut": "local/gpt-y" }, { run: { preset: "api" } })
    expect(await fallback(chosen, "run", "local/gpt-x-fault-cut", "--whole", "hi")).toMatchObject({
      code: 0,
      out: "from y\n"
    })
    const help = (await fallback(config, "run", "--help")).out
    for (const flag of ["--whole", "--stall", "api (tuned for HTTP API traffic)", "run.limits"]) {
      expect(help).toContain(flag)
    }
  })
})
