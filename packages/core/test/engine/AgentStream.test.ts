/**
 * An agent's turn as a stream, and the limits on it: no replay after the first content, stalls,
 * idle, the first byte and the send ceiling on both clocks, moves as events, thinking as content.
 */
import { describe, expect, it } from "@effect/vitest"
import { Scripted } from "@fallback/testkit"
import { Cause, Duration, Effect, Exit, Fiber, Option, Stream } from "effect"
import { TestClock } from "effect/testing"
import { Agent, Backend, Place, Preset } from "../../src/index.js"
import { Heard, texts, world } from "./world.js"

const [a, b] = ["claude/a", "codex/b"]

const collect = (agent: Agent.Agent, prompt: string) => Stream.runCollect(agent.turn(prompt))

describe("Agent", () => {
  it.effect("no replay: a failure after the first content surfaces with what was delivered, and nothing moves", () =>
    Effect.gen(function*() {
      const agent = yield* Agent.make(a)
      const delivered: Array<Backend.Event> = []
      const exit = yield* Stream.runForEach(agent.turn("hi"), (event) => Effect.sync(() => delivered.push(event))).pipe(
        Effect.exit
      )
      expect(texts(delivered)).toEqual(["part 1 ", "part 2 "])
      expect(Exit.isFailure(exit) && exit.cause.reasons.map((reason) => reason._tag)).toEqual(["Fail"])
      // issue 25: the failure comes as a Cut carrying what was delivered (b does not continue)
      expect(Exit.isFailure(exit) && Cause.squash(exit.cause)).toMatchObject({
        _tag: "Cut",
        delivered: "part 1 part 2 ",
        failure: { _tag: "Unknown" }
      })
      const scripted = yield* Scripted.Scripted
      expect(scripted.seen(a).turns).toBe(1)
      expect(scripted.seen(b).turns).toBe(0)
      expect((yield* Heard).notices).toEqual([])
    }).pipe(Effect.provide(world({ script: { places: { [a]: [Scripted.die(2, "Unknown")] } }, chain: [a, b] }))))

  it.effect("a stream that stalls after its first content ends at the turn's deadline with what was delivered", () =>
    Effect.gen(function*() {
      const agent = yield* Agent.make(a, undefined, {
        budget: { deadline: Duration.minutes(15), attempts: 20 },
        idle: Option.none()
      })
      const delivered: Array<Backend.Event> = []
      const fiber = yield* Stream.runForEach(agent.turn("hi"), (event) => Effect.sync(() => delivered.push(event)))
        .pipe(
          Effect.flip,
          Effect.forkChild
        )
      yield* TestClock.adjust(Duration.minutes(15).pipe(Duration.subtract(Duration.millis(1))))
      expect(fiber.pollUnsafe()).toBeUndefined()
      yield* TestClock.adjust(Duration.millis(1))
      const failure = yield* Fiber.join(fiber)
      expect(failure).toMatchObject({ _tag: "Cut", failure: { _tag: "Timeout", phase: "whole-send" } })
      expect(texts(delivered)).toEqual(["part 1 "])
      expect((yield* Scripted.Scripted).seen(b).turns).toBe(0)
    }).pipe(Effect.provide(world({ script: { places: { [a]: [Scripted.stall(1)] } }, chain: [a, b] }))))

  it.live("on the live clock, a stream that stalls after its first content ends at the turn's deadline with what was delivered", () =>
    Effect.gen(function*() {
      const agent = yield* Agent.make(a, undefined, { budget: { deadline: Duration.millis(300), attempts: 20 } })
      const delivered: Array<Backend.Event> = []
      const failure = yield* Stream.runForEach(agent.turn("hi"), (event) => Effect.sync(() => delivered.push(event)))
        .pipe(
          Effect.flip
        )
      expect(failure).toMatchObject({
        _tag: "Cut",
        failure: { _tag: "Timeout", phase: "whole-send", said: "the turn's deadline" }
      })
      expect(texts(delivered)).toEqual(["part 1 "])
      expect((yield* Scripted.Scripted).seen(b).turns).toBe(0)
    }).pipe(Effect.scoped, Effect.provide(world({ script: { places: { [a]: [Scripted.stall(1)] } }, chain: [a, b] }))))

  it.live("on the live clock, a send ceiling ends a stream that stalls after its first content, before the deadline", () =>
    Effect.gen(function*() {
      const agent = yield* Agent.make(a, undefined, { send: Option.some(Duration.millis(200)) })
      const failure = yield* Effect.flip(Stream.runDrain(agent.turn("hi")))
      expect(failure).toMatchObject({
        _tag: "Cut",
        failure: { _tag: "Timeout", phase: "whole-send", said: "send ceiling" }
      })
    }).pipe(Effect.scoped, Effect.provide(world({ script: { places: { [a]: [Scripted.stall(1)] } }, chain: [a, b] }))))

  it.live("on the live clock, a place that hangs before its first content yields at the first byte's limit to the next", () =>
    Effect.gen(function*() {
      const agent = yield* Agent.make(a, undefined, { firstByte: Option.some(Duration.millis(200)) })
      expect(texts(yield* collect(agent, "hi")).join("")).toContain(b)
      expect((yield* Scripted.Scripted).seen(b).turns).toBe(1)
    }).pipe(Effect.scoped, Effect.provide(world({ script: { places: { [a]: [Scripted.hang] } }, chain: [a, b] }))))

  it.live("on the live clock, limits longer than a platform timer holds (2^31 - 1 ms) wait for an answer that comes", () =>
    Effect.gen(function*() {
      const long = Duration.days(30)
      const agent = yield* Agent.make(a, undefined, {
        firstByte: Option.some(long),
        idle: Option.some(long),
        send: Option.some(long),
        budget: { deadline: Duration.days(40), attempts: 20 }
      })
      expect(texts(yield* collect(agent, "hi")).join("")).toBe("late")
      expect((yield* Scripted.Scripted).seen(b).turns).toBe(0)
      expect((yield* Heard).notices).toEqual([])
    }).pipe(
      Effect.scoped,
      Effect.provide(
        world({ script: { places: { [a]: [Scripted.delay("50 millis", Scripted.answer("late"))] } }, chain: [a, b] })
      )
    ))

  it.live("on the live clock, a quiet answer ends Unresponsive at the idle limit, announced at half of it", () =>
    Effect.gen(function*() {
      const agent = yield* Agent.make(a, undefined, { idle: Option.some(Duration.millis(300)) })
      expect(yield* Effect.flip(Stream.runDrain(agent.turn("hi")))).toMatchObject({
        _tag: "Cut",
        failure: { _tag: "Unresponsive" }
      })
      expect((yield* Heard).notices.map((heard) => heard.notice._tag)).toEqual(["Stalled"])
    }).pipe(Effect.scoped, Effect.provide(world({ script: { places: { [a]: [Scripted.stall(1)] } }, chain: [a, b] }))))

  for (const preset of [Preset.primary, Preset.breaker]) {
    it.effect(`${preset.name}: a stream quiet for 2 minutes after its first content ends Unresponsive with what it delivered, announced at 1 minute`, () =>
      Effect.gen(function*() {
        const agent = yield* Agent.make(a, undefined, preset.options)
        const delivered: Array<Backend.Event> = []
        const fiber = yield* Stream.runForEach(agent.turn("hi"), (event) => Effect.sync(() => delivered.push(event)))
          .pipe(
            Effect.flip,
            Effect.forkChild
          )
        yield* TestClock.adjust("59999 millis")
        expect((yield* Heard).notices).toEqual([])
        yield* TestClock.adjust("1 millis")
        expect((yield* Heard).lines()).toEqual([
          "claude has sent nothing for 1m since its answer began; it ends at 2m with what it sent"
        ])
        yield* TestClock.adjust("59999 millis")
        expect(fiber.pollUnsafe()).toBeUndefined()
        yield* TestClock.adjust("1 millis")
        expect(yield* Fiber.join(fiber)).toMatchObject({ _tag: "Cut", failure: { _tag: "Unresponsive" } })
        expect(texts(delivered)).toEqual(["part 1 "])
        expect((yield* Scripted.Scripted).seen(a).turns).toBe(1)
        expect((yield* Scripted.Scripted).seen(b).turns).toBe(0)
        expect((yield* Heard).timed()).toEqual(["60000 Stalled"])
      }).pipe(Effect.provide(world({ script: { places: { [a]: [Scripted.stall(1)] } }, chain: [a, b] }))))
  }

  it.effect("the idle limit is a setting: given 10 s, a quiet answer ends at 10 s, announced at 5 s", () =>
    Effect.gen(function*() {
      const agent = yield* Agent.make(a, undefined, { idle: Option.some(Duration.seconds(10)) })
      const fiber = yield* Effect.forkChild(Effect.flip(Stream.runDrain(agent.turn("hi"))))
      yield* TestClock.adjust("9999 millis")
      expect(fiber.pollUnsafe()).toBeUndefined()
      yield* TestClock.adjust("1 millis")
      expect(yield* Fiber.join(fiber)).toMatchObject({ _tag: "Cut", failure: { _tag: "Unresponsive" } })
      expect((yield* Heard).timed()).toEqual(["5000 Stalled"])
    }).pipe(Effect.provide(world({ script: { places: { [a]: [Scripted.stall(1)] } }, chain: [a, b] }))))

  // 000: "The flow sees one turn either way. ... the transcript says where it was picked up."
  for (const whole of [false, true]) {
    it.effect(`a move is an event of the turn itself, before the answer${whole ? ", in a whole reply" : ", in its stream"}`, () =>
      Effect.gen(function*() {
        const agent = yield* Agent.make("claude@work/a")
        const events = whole
          ? yield* agent.reply("hi")
          : yield* Stream.runCollect(agent.turn("hi"))
        const moves = events.filter((event) => event._tag === "Moved")
        expect(moves.map((move) => [Place.format(move.from), Place.format(move.to), move.by, move.failure._tag]))
          .toEqual([
            ["claude@work/a", "claude@home/a", "account", "AuthRefused"],
            ["claude@home/a", b, "place", "ModelNotFound"]
          ])
        expect(events.slice(0, 2)).toEqual(moves)
        expect(Backend.textOf(events)).toBe(`ok from ${b}`)
      }).pipe(Effect.provide(world({
        script: {
          places: {
            "claude@work/a": [Scripted.fail("AuthRefused")],
            "claude@home/a": [Scripted.fail("ModelNotFound")]
          },
          whole
        },
        chain: ["claude@work/a", b],
        accounts: { claude: ["work", "home"] }
      }))))
  }

  // Thinking is not silence: any sign of life from the model meets the first byte's limit and keeps
  // the idle limit from running out.
  const thinking = (seconds: number) => Backend.Event.Thinking({ text: `thought at ${seconds} s ` })
  for (const whole of [false, true]) {
    it.effect(`a turn that thinks for 45 s past the 30 s first byte, then answers, lands${whole ? ", taken whole" : ""}`, () =>
      Effect.gen(function*() {
        const agent = yield* Agent.make(a)
        const fiber = yield* Effect.forkChild(
          whole ? agent.reply("hi") : Stream.runCollect(agent.turn("hi"))
        )
        yield* TestClock.adjust("1 minute")
        const events = yield* Fiber.join(fiber)
        expect(events.map((event) => event._tag)).toEqual([
          "SessionStarted",
          "Thinking",
          "Thinking",
          "Thinking",
          "Text",
          "Result"
        ])
        expect((yield* Scripted.Scripted).seen(b).opens).toBe(0)
      }).pipe(Effect.provide(world({
        script: {
          places: {
            [a]: [
              Scripted.timed([
                ["20 seconds", thinking(20)],
                ["20 seconds", thinking(40)],
                ["4 seconds", thinking(44)],
                ["1 second", Backend.Event.Text({ text: "answer" })],
                ["0 seconds", Backend.Event.Result({ text: "answer", usage: { input: 1, output: 1 } })]
              ])
            ]
          }
        },
        chain: [a, b]
      }))))
  }

  it.effect("thinking keeps a quiet answer alive: pieces 25 s apart under a 60 s idle limit, for 3 minutes, land", () =>
    Effect.gen(function*() {
      const agent = yield* Agent.make(a, undefined, { idle: Option.some(Duration.minutes(1)) })
      const fiber = yield* Effect.forkChild(Agent.ask(agent, "hi"))
      yield* TestClock.adjust("10 minutes")
      expect(yield* Fiber.join(fiber)).toBe("answer")
      expect((yield* Heard).notices).toEqual([])
    }).pipe(Effect.provide(world({
      script: {
        places: {
          [a]: [
            Scripted.timed([
              ["10 seconds", Backend.Event.Text({ text: "an" })],
              ...Array.from({ length: 6 }, (_, i) => ["25 seconds", thinking(35 + i * 25)] as const),
              ["25 seconds", Backend.Event.Text({ text: "swer" })]
            ])
          ]
        }
      },
      chain: [a, b]
    }))))

  // The commit point: a streamed turn hands its thinking to the caller as it comes, so a failure
  // after it surfaces with what was delivered, and nothing moves (nothing is replayed).
  it.effect("a streamed turn that showed its thinking and then fails surfaces the failure; nothing moves", () =>
    Effect.gen(function*() {
      const agent = yield* Agent.make(a)
      const delivered: Array<Backend.Event> = []
      const exit = yield* Stream.runForEach(agent.turn("hi"), (event) => Effect.sync(() => delivered.push(event))).pipe(
        Effect.exit,
        Effect.forkChild,
        Effect.tap(() => TestClock.adjust("1 minute")),
        Effect.flatMap(Fiber.join)
      )
      expect(delivered.map((event) => event._tag)).toEqual(["SessionStarted", "Thinking"])
      expect(Exit.isFailure(exit)).toBe(true)
      expect((yield* Scripted.Scripted).seen(b).opens).toBe(0)
    }).pipe(Effect.provide(world({
      script: {
        places: {
          [a]: [
            Scripted.timed([["5 seconds", thinking(5)]], "Unknown")
          ]
        }
      },
      chain: [a, b]
    }))))

  it.effect("session events before the first content are held back, and a hang after them still fails over", () =>
    Effect.gen(function*() {
      const agent = yield* Agent.make(a)
      const fiber = yield* Effect.forkChild(collect(agent, "hi"))
      yield* TestClock.adjust("30 seconds")
      const events = yield* Fiber.join(fiber)
      expect(events.map((e) => e._tag)).toEqual(["Moved", "SessionStarted", "Text", "Result"])
      expect(events[1]).toEqual(Backend.Event.SessionStarted({ sessionId: `${b}#1` }))
    }).pipe(Effect.provide(world({ script: { places: { [a]: [Scripted.hang] } }, chain: [a, b] }))))
})
