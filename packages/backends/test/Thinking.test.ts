/**
 * Thinking is not silence: each backend's reading of its model's thinking (codex's reasoning
 * items, the HTTP providers' thinking and reasoning deltas), and a claude turn that thinks first,
 * read by claude's own stream parser and taken by the engine on the TestClock. The stream is
 * test/fixtures/agents/claude/thinking.json: real claude 2.1.332, run with fallback's flags
 * (`--include-partial-messages`) against the mock provider answering with thinking first
 * (`fault-think`), recorded by test/agents/thinking.agents.ts. It ran in about a second; here its
 * lines are played stretched: the thinking from 2 s to 42 s, the text at 45 s.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Claude from "@fallback/backends/Claude"
import * as Codex from "@fallback/backends/Codex"
import * as Agent from "@fallback/core/Agent"
import * as Backend from "@fallback/core/Backend"
import * as Health from "@fallback/core/Health"
import * as Notice from "@fallback/core/Notice"
import * as Place from "@fallback/core/Place"
import * as Settings from "@fallback/core/Settings"
import * as Steps from "@fallback/core/Steps"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/testing/TestClock"
import * as fs from "node:fs"
import * as path from "node:path"
import { anthropic } from "../src/internal/http/anthropic.js"
import { openAi } from "../src/internal/http/openAi.js"
import { SseParser } from "../src/internal/http/sse.js"
import { readEvents, type Wire } from "../src/internal/http/wire.js"
import { folder, given, printing } from "./fakes.js"

interface Recorded {
  readonly version: string
  readonly model: string
  readonly stdout: string
  readonly exitCode: number
  readonly signal: null
  readonly stderr: string
}

const recorded: Recorded = JSON.parse(
  fs.readFileSync(path.resolve(import.meta.dirname, "../../../test/fixtures/agents/claude/thinking.json"), "utf8")
)
const lines = recorded.stdout.trim().split("\n")
const answer = "Use a 30 s first-byte limit and count thinking as a sign of life."
const claude = new Place.Place({ cli: "claude", model: recorded.model })
const codex = new Place.Place({ cli: "codex", model: "gpt-5.5" })

const fields = (line: string): any => JSON.parse(line)
const isThinkingPiece = (line: string) => fields(line).event?.delta?.type === "thinking_delta"

/** A line that carries thinking: its pieces, its block's start and signature, claude's token count of it, the whole block. */
const isThinking = (line: string): boolean => {
  const { type, subtype, event, message } = fields(line)
  return type === "stream_event"
    ? ["thinking_delta", "signature_delta"].includes(event?.delta?.type) || event?.content_block?.type === "thinking"
    : type === "system"
    ? subtype === "thinking_tokens"
    : type === "assistant" && message.content.every((block: any) => block.type === "thinking")
}

/**
 * When each line is printed, in ms: the thinking pieces spread evenly from 2 s to 42 s, each other
 * line with the piece before it (at 0 s before the first), and from the text's block on, 45 s.
 */
const at: ReadonlyArray<number> = (() => {
  const pieces = lines.filter(isThinkingPiece).length
  const text = lines.findIndex((line) => fields(line).event?.content_block?.type === "text")
  let piece = -1
  return lines.map((line, i) => {
    if (i >= text) return 45_000
    if (isThinkingPiece(line)) piece += 1
    return piece < 0 ? 0 : 2_000 + Math.round((40_000 * piece) / Math.max(1, pieces - 1))
  })
})()

/** What the claude backend streams for the recorded lines kept: each line's events at its time, then the judged result. */
const played = (keep: (line: string) => boolean) => {
  const kept = lines.flatMap((line, i) => keep(line) ? [[line, at[i]!] as const] : [])
  const result = Result.getOrThrow(
    Claude.readOutcome({ ...recorded, stdout: kept.map(([line]) => line).join("\n") }, claude)
  )
    .events.filter((event) => event._tag === "Result")
  const read = Claude.events()
  const timed = kept.map(([line, when], i) => [when - (kept[i - 1]?.[1] ?? 0), read(line)] as const)
  return Stream.fromIterable(timed).pipe(
    Stream.mapEffect(([wait, events]) => Effect.as(Effect.sleep(Duration.millis(wait)), events)),
    Stream.flattenIterable,
    Stream.concat(Stream.fromIterable(result))
  )
}

const capabilities: Backend.Capabilities = {
  webSearchOff: true,
  callbacks: false,
  effort: true,
  permission: true,
  skills: true,
  resume: true,
  models: []
}

const world = (keep: (line: string) => boolean) => {
  const opened: Array<string> = []
  const backend = (cli: string, turn: () => Stream.Stream<Backend.Event>): Backend.Backend => ({
    cli,
    capabilities,
    open: () => Effect.sync(() => (opened.push(cli), { id: `${cli}-session`, turn }))
  })
  const backends = Backend.Backends.layer([
    backend("claude", () => played(keep)),
    backend("codex", () => Stream.make(Backend.Event.Result({ text: "from codex", usage: { input: 1, output: 1 } })))
  ])
  const steps = Layer.effectDiscard(Effect.flatMap(Steps.Steps, (s) => Effect.orDie(s.points(claude, codex))))
  const layer = Layer.provideMerge(
    steps,
    Layer.mergeAll(backends, Steps.Steps.layerMemory, Health.Health.layerMemory(), Notice.Notices.layer)
  )
  return { opened, layer }
}

const all = () => true
const thoughtless = (line: string) => !isThinking(line)

describe(`a claude turn that thinks first (recorded: real claude ${recorded.version} against the mock, fault-think)`, () => {
  it("the recording is real claude's: thinking_delta pieces as stream_event lines, with thinking_tokens counts between, then the whole block", () => {
    const kinds = lines.map((line) => {
      const { type, subtype, event, message } = fields(line)
      return type === "stream_event"
        ? event.delta?.type ?? event.content_block?.type ?? event.type
        : type === "system"
        ? subtype
        : type === "assistant"
        ? `assistant ${message.content.map((block: any) => block.type).join(" ")}`
        : type
    })
    const thinking = kinds.slice(kinds.indexOf("thinking"), kinds.indexOf("text"))
    expect(thinking.filter((kind) => kind === "thinking_delta").length).toBeGreaterThan(1)
    expect(thinking).toContain("thinking_tokens")
    expect(thinking).toContain("signature_delta")
    expect(thinking).toContain("assistant thinking")
    expect(kinds.indexOf("text_delta")).toBeGreaterThan(kinds.lastIndexOf("thinking_delta"))
    expect(at[lines.findIndex(isThinkingPiece)]).toBe(2_000)
    expect(Math.max(...lines.flatMap((line, i) => isThinkingPiece(line) ? [at[i]!] : []))).toBe(42_000)
    expect(at[kinds.indexOf("text_delta")]).toBe(45_000)
  })

  it("claude's stream gives the thinking and the text piece by piece, each once", () => {
    const events = lines.flatMap(Claude.events())
    const pieces = lines.filter(isThinkingPiece).length
    const texts = lines.filter((line) => fields(line).event?.delta?.type === "text_delta").length
    expect(events.map((event) => event._tag)).toEqual([
      "SessionStarted",
      ...Array(pieces).fill("Thinking"),
      ...Array(texts).fill("Text")
    ])
    const thought = events.flatMap((event) => event._tag === "Thinking" ? [event.text] : []).join("")
    expect(thought).toMatch(/^The user asks how long to wait for a first byte\. .* Answering now\.$/)
    expect(Backend.textOf(events)).toBe(answer)
  })

  it.live("the claude backend, running a real child that prints the stream, gives each piece once, then the result", () =>
    Effect.gen(function*() {
      const dir = folder()
      const backend = Claude.make({ bin: printing(dir, "claude", { stdout: recorded.stdout }), cwd: dir })
      const session = yield* backend.open(claude, Option.none(), Settings.plain, {})
      const events = yield* Stream.runCollect(session.turn({ text: "how long?", history: [] }))
      const tags = events.map((event) => event._tag)
      expect(tags.slice(0, 2)).toEqual(["SessionStarted", "Thinking"])
      expect(tags.filter((tag) => tag === "Thinking")).toHaveLength(lines.filter(isThinkingPiece).length)
      expect(tags.lastIndexOf("Thinking")).toBeLessThan(tags.indexOf("Text"))
      expect(tags.at(-1)).toBe("Result")
      expect(Backend.textOf(events)).toBe(answer)
      expect(given(dir).argv).toContain("--include-partial-messages")
    }))

  it("a claude that streamed no pieces gives its whole blocks, thinking and text", () => {
    const whole = lines.filter((line) => fields(line).type !== "stream_event")
    expect(whole.flatMap(Claude.events()).map((event) => event._tag)).toEqual(["SessionStarted", "Thinking", "Text"])
  })

  for (const whole of [false, true]) {
    // The primary design's 30 s first byte (Agent.defaults): the thinking meets it, the text comes at 45 s.
    it.effect(`thinking from 2 s to 42 s, past the 30 s first byte, then answering at 45 s, lands at claude${whole ? ", taken whole" : ", streamed"}`, () => {
      const { layer, opened } = world(all)
      return Effect.gen(function*() {
        const agent = yield* Agent.make(claude)
        const fiber = yield* Effect.forkChild(
          whole
            ? agent.reply("how long?")
            : Stream.runCollect(agent.turn("how long?"))
        )
        yield* TestClock.adjust("30 seconds")
        expect(fiber.pollUnsafe()).toBeUndefined()
        yield* TestClock.adjust("30 seconds")
        const events = yield* Fiber.join(fiber)
        expect(Backend.textOf(events)).toBe(answer)
        expect(events.filter((event) => event._tag === "Thinking")).toHaveLength(lines.filter(isThinkingPiece).length)
        expect(events.some((event) => event._tag === "Moved")).toBe(false)
        expect(opened).toEqual(["claude"])
      }).pipe(Effect.provide(layer))
    })
  }

  it.effect("the same lines with the thinking lines taken out are cut at 30 s and moved: what the thinking prevents", () => {
    const { layer, opened } = world(thoughtless)
    return Effect.gen(function*() {
      const agent = yield* Agent.make(claude)
      const fiber = yield* Effect.forkChild(agent.reply("how long?"))
      yield* TestClock.adjust("29 seconds")
      expect(fiber.pollUnsafe()).toBeUndefined()
      expect(opened).toEqual(["claude"])
      yield* TestClock.adjust("31 seconds")
      const events = yield* Fiber.join(fiber)
      expect(Backend.textOf(events)).toBe("from codex")
      expect(events[0]).toMatchObject({ _tag: "Moved", failure: { _tag: "Timeout", phase: "first-byte" } })
      expect(opened).toEqual(["claude", "codex"])
    }).pipe(Effect.provide(layer))
  })

  it.effect("thinking keeps the idle limit from running out: quiet 20 s at a time under a 25 s idle limit, it lands", () => {
    const { layer } = world(all)
    return Effect.gen(function*() {
      const agent = yield* Agent.make(claude, undefined, { idle: Option.some(Duration.seconds(25)) })
      const fiber = yield* Effect.forkChild(Stream.runCollect(agent.turn("how long?")))
      yield* TestClock.adjust("60 seconds")
      expect(Backend.textOf(yield* Fiber.join(fiber))).toBe(answer)
    }).pipe(Effect.provide(layer))
  })
})

describe("thinking as each backend gives it", () => {
  it("codex: a reasoning item is thinking, before the answer; the result is the agent's message", () => {
    const place = new Place.Place({ cli: "codex", model: "gpt-5.5" })
    const stdout = [
      { type: "thread.started", thread_id: "t-1" },
      { type: "turn.started" },
      { type: "item.completed", item: { id: "item_0", type: "reasoning", text: "**Weighing the limit**" } },
      { type: "item.completed", item: { id: "item_1", type: "agent_message", text: "30 s." } },
      { type: "turn.completed", usage: { input_tokens: 10, output_tokens: 3 } }
    ].map((event) => JSON.stringify(event)).join("\n")
    const events = Result.getOrThrow(Codex.readOutcome({ exitCode: 0, signal: null, stdout, stderr: "" }, place)).events
    expect(events.map((event) => event._tag)).toEqual(["SessionStarted", "Thinking", "Text", "Result"])
    expect(events[1]).toMatchObject({ text: "**Weighing the limit**" })
    expect(Backend.textOf(events)).toBe("30 s.")
  })

  const read = (wire: Wire, body: string) => {
    const out: Array<Backend.Event> = []
    const reading = { text: "", input: 0, output: 0, model: undefined, finished: false, skipped: 0, strays: "" }
    readEvents(wire, reading, new SseParser().feed(body), out)
    return { out: out.map((event) => [event._tag, "text" in event ? event.text : ""]), text: reading.text }
  }

  it("Anthropic Messages: thinking_delta is thinking, text_delta the answer", () => {
    const sse = (data: object) => `event: ${(data as { type: string }).type}\ndata: ${JSON.stringify(data)}\n\n`
    const body = [
      { type: "message_start", message: { usage: { input_tokens: 5 } } },
      { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "Let me see." } },
      { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: "sig" } },
      { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "30 s." } },
      { type: "message_stop" }
    ].map(sse).join("")
    expect(read(anthropic, body)).toEqual({ out: [["Thinking", "Let me see."], ["Text", "30 s."]], text: "30 s." })
  })

  it("OpenAI-compatible: reasoning_content and reasoning deltas are thinking, content the answer", () => {
    const sse = (delta: object) => `data: ${JSON.stringify({ choices: [{ index: 0, delta }] })}\n\n`
    const body = [sse({ reasoning_content: "Hmm, " }), sse({ reasoning: "the limit." }), sse({ content: "30 s." })]
      .join("") + "data: [DONE]\n\n"
    expect(read(openAi, body)).toEqual({
      out: [["Thinking", "Hmm, "], ["Thinking", "the limit."], ["Text", "30 s."]],
      text: "30 s."
    })
  })
})
