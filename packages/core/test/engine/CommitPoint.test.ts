/**
 * Issue 25, the commit point is where the caller got something: a whole reply hands nothing over
 * until it ends, so a cut, a stall or an error inside the stream moves on; a streamed turn that
 * delivered content is continued where the next place continues (a prefill), else it ends as an
 * `Agent.Cut` with what was delivered; opening frames are not content.
 */
import { describe, expect, it } from "@effect/vitest"
import { Scripted } from "@fallback/testkit"
import { Cause, Effect, Exit, Fiber, Stream } from "effect"
import { TestClock } from "effect/testing"
import { Agent, Backend } from "../../src/index.js"
import { Heard, texts, world } from "./world.js"

const [a, b, c] = ["claude/a", "codex/b", "gemini/c"]

/** The events a streamed turn delivered, and how it ended. */
const streamed = (agent: Agent.Agent, prompt: string) =>
  Effect.gen(function*() {
    const delivered: Array<Backend.Event> = []
    const exit = yield* Effect.exit(
      Stream.runForEach(agent.turn(prompt), (event) => Effect.sync(() => delivered.push(event)))
    )
    return { delivered, exit }
  })

const errorOf = <A, E>(exit: Exit.Exit<A, E>) => Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined

const half = Backend.Event.Text({ text: "the ans" })

/** b continues from what a delivered: it answers the rest, and says what it was given. */
const continuing = Scripted.decide((prompt) =>
  prompt.prefill === "the ans" ? Scripted.answer("wer is 42") : Scripted.answer(`no prefill (${prompt.prefill})`)
)

describe("the commit point (issue 25)", () => {
  describe("a whole reply hands nothing over until it ends", () => {
    it.effect("a stream cut mid-answer moves to the next place; the partial answer is discarded", () =>
      Effect.gen(function*() {
        const agent = yield* Agent.make(a)
        const events = yield* agent.reply("hi")
        expect(texts(events)).toEqual([`ok from ${b}`])
        expect(Backend.textOf(events)).toBe(`ok from ${b}`)
        expect(events.some((event) => event._tag === "Moved")).toBe(true)
        const scripted = yield* Scripted.Scripted
        expect([scripted.seen(a).turns, scripted.seen(b).turns]).toEqual([1, 1])
      }).pipe(Effect.provide(world({ script: { places: { [a]: [Scripted.die(2, "Unknown")] } }, chain: [a, b] }))))

    it.effect("an error inside the stream after text (a 429 in a 200) is answered as its kind: 30 s, once more, then moves", () =>
      Effect.gen(function*() {
        const agent = yield* Agent.make(a)
        const fiber = yield* Effect.forkChild(Agent.ask(agent, "hi"))
        yield* TestClock.adjust("1 minute")
        expect(yield* Fiber.join(fiber)).toBe(`ok from ${b}`)
        const scripted = yield* Scripted.Scripted
        expect(scripted.seen(a).at).toEqual([0, 30_000])
        expect(scripted.seen(b).at).toEqual([30_000])
      }).pipe(Effect.provide(world({
        script: { places: { [a]: [Scripted.timed([["0 millis", half]], "RateLimited")] } },
        chain: [a, b]
      }))))

    it.effect("a stall mid-answer ends the attempt at the stall limit (2 min at a CLI) and moves on", () =>
      Effect.gen(function*() {
        const agent = yield* Agent.make(a)
        const fiber = yield* Effect.forkChild(Agent.ask(agent, "hi"))
        yield* TestClock.adjust("119999 millis")
        expect(fiber.pollUnsafe()).toBeUndefined()
        yield* TestClock.adjust("1 millis")
        expect(yield* Fiber.join(fiber)).toBe(`ok from ${b}`)
        expect((yield* Scripted.Scripted).seen(b).at).toEqual([120_000])
      }).pipe(Effect.provide(world({ script: { places: { [a]: [Scripted.stall(1)] } }, chain: [a, b] }))))

    it.effect("thinking does not commit a whole reply: a failure after it still moves", () =>
      Effect.gen(function*() {
        const agent = yield* Agent.make(a)
        expect(yield* Agent.ask(agent, "hi")).toBe(`ok from ${b}`)
      }).pipe(Effect.provide(world({
        script: {
          places: { [a]: [Scripted.timed([["0 millis", Backend.Event.Thinking({ text: "hmm" })]], "Unknown")] }
        },
        chain: [a, b]
      }))))

    it.effect("with no place left, the failure is typed, never a truncated answer", () =>
      Effect.gen(function*() {
        const agent = yield* Agent.make(a)
        expect((yield* Effect.flip(Agent.ask(agent, "hi")))._tag).toBe("Unknown")
      }).pipe(Effect.provide(world({ script: { places: { [a]: [Scripted.die(2, "Unknown")] } }, chain: [a] }))))
  })

  describe("a streamed turn, once content reached the caller", () => {
    it.effect("continues at a next place that continues: prefilled with what was delivered, nothing replayed", () =>
      Effect.gen(function*() {
        const agent = yield* Agent.make(a)
        const { delivered, exit } = yield* streamed(agent, "hi")
        expect(Exit.isSuccess(exit)).toBe(true)
        expect(texts(delivered)).toEqual(["the ans", "wer is 42"])
        expect(delivered.filter((event) => event._tag === "Moved").length).toBe(1)
        expect(Backend.textOf(delivered)).toBe("the answer is 42")
        const scripted = yield* Scripted.Scripted
        expect(scripted.seen(b).prompts.map((prompt) => prompt.prefill)).toEqual(["the ans"])
        // the agent moved, and its conversation holds the whole answer
        expect(yield* agent.at).toMatchObject({ cli: "codex", model: "b" })
      }).pipe(Effect.provide(world({
        script: {
          places: { [a]: [Scripted.timed([["0 millis", half]], "ConnectionLost")], [b]: [continuing] },
          capabilities: { codex: { continues: true } }
        },
        chain: [a, b]
      }))))

    it.effect("a model that declares `continues` is believed over its backend", () =>
      Effect.gen(function*() {
        const agent = yield* Agent.make(a)
        const { delivered } = yield* streamed(agent, "hi")
        expect(Backend.textOf(delivered)).toBe("the answer is 42")
      }).pipe(Effect.provide(world({
        script: {
          places: { [a]: [Scripted.timed([["0 millis", half]], "Unknown")], [b]: [continuing] },
          capabilities: { codex: { continues: false, models: [{ name: "b", continues: true }] } }
        },
        chain: [a, b]
      }))))

    it.effect("ends as Agent.Cut with what was delivered where the next place does not continue; it is not asked", () =>
      Effect.gen(function*() {
        const agent = yield* Agent.make(a)
        const { delivered, exit } = yield* streamed(agent, "hi")
        expect(texts(delivered)).toEqual(["part 1 ", "part 2 "])
        const cut = errorOf(exit)
        expect(cut).toBeInstanceOf(Agent.Cut)
        expect(cut).toMatchObject({
          place: { cli: "claude" },
          delivered: "part 1 part 2 ",
          failure: { _tag: "Unknown" }
        })
        expect((cut as Agent.Cut).continuation).toBeUndefined()
        expect((yield* Scripted.Scripted).seen(b).turns).toBe(0)
        // nothing narrates a move that was not made
        expect((yield* Heard).notices.map(({ notice }) => notice._tag)).toEqual([])
      }).pipe(Effect.provide(world({ script: { places: { [a]: [Scripted.die(2, "Unknown")] } }, chain: [a, b] }))))

    it.effect("inside a tool call it always ends as a Cut, even where the next place continues", () =>
      Effect.gen(function*() {
        const agent = yield* Agent.make(a)
        const { exit } = yield* streamed(agent, "hi")
        expect(errorOf(exit)).toMatchObject({ _tag: "Cut", delivered: "the ans" })
        expect((yield* Scripted.Scripted).seen(b).turns).toBe(0)
      }).pipe(Effect.provide(world({
        script: {
          places: {
            [a]: [
              Scripted.timed(
                [["0 millis", half], ["0 millis", Backend.Event.ToolUse({ name: "read", input: {} })]],
                "Unknown"
              )
            ],
            [b]: [continuing]
          },
          capabilities: { codex: { continues: true } }
        },
        chain: [a, b]
      }))))

    it.effect("a refused continuation never masks the original failure: both are in the Cut", () =>
      Effect.gen(function*() {
        const agent = yield* Agent.make(a)
        const { delivered, exit } = yield* streamed(agent, "hi")
        expect(texts(delivered)).toEqual(["the ans"])
        expect(errorOf(exit)).toMatchObject({
          _tag: "Cut",
          delivered: "the ans",
          failure: { _tag: "ConnectionLost" },
          continuation: { _tag: "ArgumentsRefused" }
        })
        expect((yield* Scripted.Scripted).seen(b).prompts.map((prompt) => prompt.prefill)).toEqual(["the ans"])
      }).pipe(Effect.provide(world({
        script: {
          places: {
            [a]: [Scripted.timed([["0 millis", half]], "ConnectionLost")],
            [b]: [Scripted.fail("ArgumentsRefused")]
          },
          capabilities: { codex: { continues: true } }
        },
        chain: [a, b, c]
      }))))

    it.effect("a continuation cut again is continued again, from everything delivered so far", () =>
      Effect.gen(function*() {
        const agent = yield* Agent.make(a)
        const { delivered, exit } = yield* streamed(agent, "hi")
        expect(Exit.isSuccess(exit)).toBe(true)
        expect(Backend.textOf(delivered)).toBe("the answer is 42")
        expect((yield* Scripted.Scripted).seen(c).prompts.map((prompt) => prompt.prefill)).toEqual(["the answer"])
      }).pipe(Effect.provide(world({
        script: {
          places: {
            [a]: [Scripted.timed([["0 millis", half]], "Unknown")],
            [b]: [Scripted.timed([["0 millis", Backend.Event.Text({ text: "wer" })]], "Unknown")],
            [c]: [Scripted.decide((prompt) => Scripted.answer(prompt.prefill === "the answer" ? " is 42" : "?"))]
          },
          capabilities: { codex: { continues: true }, gemini: { continues: true } }
        },
        chain: [a, b, c]
      }))))

    it.effect("opening frames are not content: a stream whose first content fails still fails over invisibly", () =>
      Effect.gen(function*() {
        const agent = yield* Agent.make(a)
        const { delivered, exit } = yield* streamed(agent, "hi")
        expect(Exit.isSuccess(exit)).toBe(true)
        expect(texts(delivered)).toEqual([`ok from ${b}`])
      }).pipe(Effect.provide(world({
        script: {
          places: {
            [a]: [
              Scripted.timed([["0 millis", Backend.Event.Text({ text: "" })], [
                "0 millis",
                Backend.Event.Text({ text: "" })
              ]], "Unknown")
            ]
          }
        },
        chain: [a, b]
      }))))

    it("an empty text is not content; thinking still is", () => {
      expect(Backend.isContent(Backend.Event.Text({ text: "" }))).toBe(false)
      expect(Backend.isContent(Backend.Event.Text({ text: "x" }))).toBe(true)
      expect(Backend.isContent(Backend.Event.Thinking({ text: "x" }))).toBe(true)
    })
  })

  describe("the answering model and the usage reach the turn's result", () => {
    for (const whole of [false, true]) {
      it.effect(`the Result names the model that answered${whole ? ", answered whole" : ", streamed"}`, () =>
        Effect.gen(function*() {
          const agent = yield* Agent.make(a)
          const events = whole
            ? yield* agent.reply("hi")
            : yield* Stream.runCollect(agent.turn("hi"))
          const result = events.find((event) => event._tag === "Result")
          expect(result).toMatchObject({ model: "b", usage: { input: 1, output: 4 } })
        }).pipe(Effect.provide(world({ script: { places: { [a]: [Scripted.fail("Unknown")] } }, chain: [a, b] }))))
    }
  })
})
