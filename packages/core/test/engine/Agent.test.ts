import { describe, expect, it } from "@effect/vitest"
import { Scripted } from "@fallback/testkit"
import { Duration, Effect, Exit, Fiber, Layer, Option, Scope, Stream } from "effect"
import { TestClock } from "effect/testing"
import { Agent, Backend, Compactor, Failure, Health, Place, Preset, Settings, Steps } from "../../src/index.js"
import { Heard, texts, world } from "./world.js"

const [a, b, c, d] = ["claude/a", "codex/b", "gemini/c", "opencode/d"]

const collect = (agent: Agent.Agent, prompt: string) => Stream.runCollect(agent.turn(prompt))

describe("Agent", () => {
  it.effect("laziness: a chain of 4 places whose first answers builds no stand-in", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const agent = yield* Scope.provide(Agent.make(a), scope)
      expect(yield* Agent.ask(agent, "one")).toBe(`ok from ${a}`)
      expect(yield* Agent.ask(agent, "two")).toBe(`ok from ${a}`)
      const scripted = yield* Scripted.Scripted
      expect([a, b, c, d].map((place) => scripted.seen(place).opens)).toEqual([1, 0, 0, 0])
      yield* Scope.close(scope, Exit.void)
      expect(scripted.seen(a).closes).toBe(1)
    }).pipe(Effect.provide(world({ script: { places: {} }, chain: [a, b, c, d] }))))

  it.effect("laziness: moving twice builds exactly 2 stand-ins, once each, released when the agent's scope closes", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const agent = yield* Scope.provide(Agent.make(a), scope)
      expect(yield* Agent.ask(agent, "one")).toBe(`ok from ${c}`)
      expect(yield* Agent.ask(agent, "two")).toBe(`ok from ${c}`)
      expect(yield* Agent.ask(agent, "three")).toBe(`ok from ${c}`)
      const scripted = yield* Scripted.Scripted
      expect([b, c, d].map((place) => scripted.seen(place).opens)).toEqual([1, 1, 0])
      expect([b, c, d].map((place) => scripted.seen(place).closes)).toEqual([0, 0, 0])
      yield* Scope.close(scope, Exit.void)
      expect([a, b, c, d].map((place) => scripted.seen(place).closes)).toEqual([1, 1, 1, 0])
    }).pipe(Effect.provide(world({
      script: { places: { [a]: [Scripted.fail("ModelNotFound")], [b]: [Scripted.fail("ModelNotFound")] } },
      chain: [a, b, c, d]
    }))))

  it.effect("moved stays moved: later turns go straight to where the agent moved", () =>
    Effect.gen(function*() {
      const agent = yield* Agent.make("claude@work/a")
      yield* Agent.ask(agent, "one")
      yield* Agent.ask(agent, "two")
      const scripted = yield* Scripted.Scripted
      expect(scripted.seen("claude@work/a").turns).toBe(1)
      expect(scripted.seen("claude@home/a").turns).toBe(2)
      expect(Place.format(yield* agent.at)).toBe("claude@home/a")
      expect(agent.origin).toEqual(Place.Place.make({ cli: "claude", account: "work", model: "a" }))
    }).pipe(Effect.provide(world({
      script: { places: { "claude@work/a": [Scripted.fail("AuthRefused")] } },
      accounts: { claude: ["work", "home"] }
    }))))

  it.effect("an account left behind is not walked back to: the chain goes on from where the agent is", () =>
    Effect.gen(function*() {
      const agent = yield* Agent.make("claude@work/a")
      expect(yield* Agent.ask(agent, "one")).toBe("ok from claude@home/a")
      expect(yield* Agent.ask(agent, "two")).toBe(`ok from ${b}`)
      const scripted = yield* Scripted.Scripted
      expect(scripted.seen("claude@work/a").turns).toBe(1)
      expect(scripted.asked()).toEqual(["claude@work/a", "claude@home/a", b])
    }).pipe(Effect.provide(world({
      script: {
        places: {
          "claude@work/a": [Scripted.fail("AuthRefused"), Scripted.answer("work again")],
          "claude@home/a": [Scripted.answer("ok from claude@home/a"), Scripted.fail("AuthRefused")]
        }
      },
      chain: ["claude@work/a", b],
      accounts: { claude: ["work", "home"] }
    }))))

  it.effect("a backend that names the kind is believed, whatever its message says", () =>
    Effect.gen(function*() {
      const agent = yield* Agent.make("claude@work/a")
      expect(yield* Agent.ask(agent, "hi")).toBe(`ok from ${b}`)
      expect((yield* Scripted.Scripted).asked()).toEqual(["claude@work/a", b])
    }).pipe(Effect.provide(world({
      script: {
        places: {
          "claude@work/a": [
            Scripted.fail((place) => new Failure.ModelNotFound({ place, said: Failure.said("429 too many requests") }))
          ]
        }
      },
      chain: ["claude@work/a", b],
      accounts: { claude: ["work", "home"] }
    }))))

  it.effect("the account chain carries the conversation: resumed by session id, history kept", () =>
    Effect.gen(function*() {
      const agent = yield* Agent.make("claude@work/a")
      yield* Agent.ask(agent, "one")
      yield* Agent.ask(agent, "two")
      const seen = (yield* Scripted.Scripted).seen("claude@home/a")
      expect(seen.resumed).toEqual(["claude@work/a#1"])
      expect(seen.prompts.map((p) => p.history.map((e) => e.prompt))).toEqual([["one"]])
    }).pipe(Effect.provide(world({
      script: { places: { "claude@work/a": [Scripted.answer("first"), Scripted.fail("AuthRefused")] } },
      accounts: { claude: ["work", "home"] }
    }))))

  it.effect("a turn that fails after trying a stand-in leaves the agent's conversation and history as they were", () =>
    Effect.gen(function*() {
      const agent = yield* Agent.make("claude@work/a")
      yield* Agent.ask(agent, "one")
      expect((yield* Effect.flip(Agent.ask(agent, "two")))._tag).toBe("Unknown")
      expect(yield* Agent.ask(agent, "three")).toBe("ok from claude@home/a")
      const seen = (yield* Scripted.Scripted).seen("claude@home/a")
      expect(seen.resumed).toEqual(["claude@work/a#1"])
      expect(seen.prompts.map((p) => p.history.map((e) => e.prompt))).toEqual([["one"]])
    }).pipe(Effect.provide(world({
      script: {
        places: {
          "claude@work/a": [Scripted.answer("first"), Scripted.fail("NotInstalled"), Scripted.fail("AuthRefused")],
          [b]: [Scripted.fail("Unknown")]
        }
      },
      chain: ["claude@work/a", b],
      accounts: { claude: ["work", "home"] }
    }))))

  it.effect("the place chain starts the stand-in fresh: a new session, no history carried", () =>
    Effect.gen(function*() {
      const agent = yield* Agent.make(a)
      yield* Agent.ask(agent, "one")
      yield* Agent.ask(agent, "two")
      yield* Agent.ask(agent, "three")
      const seen = (yield* Scripted.Scripted).seen(b)
      expect(seen.resumed).toEqual([undefined])
      expect(seen.prompts.map((p) => p.history.map((e) => e.prompt))).toEqual([[], ["two"]])
    }).pipe(Effect.provide(world({
      script: { places: { [a]: [Scripted.answer("first"), Scripted.fail("ModelNotFound")] } },
      chain: [a, b]
    }))))

  it.effect("no replay: a failure after the first content surfaces with what was delivered, and nothing moves", () =>
    Effect.gen(function*() {
      const agent = yield* Agent.make(a)
      const delivered: Array<Backend.Event> = []
      const exit = yield* Stream.runForEach(agent.turn("hi"), (event) => Effect.sync(() => delivered.push(event))).pipe(
        Effect.exit
      )
      expect(texts(delivered)).toEqual(["part 1 ", "part 2 "])
      expect(Exit.isFailure(exit) && exit.cause.reasons.map((reason) => reason._tag)).toEqual(["Fail"])
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
      expect(failure).toMatchObject({ _tag: "Timeout", phase: "whole-send" })
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
      expect(failure).toMatchObject({ _tag: "Timeout", phase: "whole-send", said: "the turn's deadline" })
      expect(texts(delivered)).toEqual(["part 1 "])
      expect((yield* Scripted.Scripted).seen(b).turns).toBe(0)
    }).pipe(Effect.scoped, Effect.provide(world({ script: { places: { [a]: [Scripted.stall(1)] } }, chain: [a, b] }))))

  it.live("on the live clock, a send ceiling ends a stream that stalls after its first content, before the deadline", () =>
    Effect.gen(function*() {
      const agent = yield* Agent.make(a, undefined, { send: Option.some(Duration.millis(200)) })
      const failure = yield* Effect.flip(Stream.runDrain(agent.turn("hi")))
      expect(failure).toMatchObject({ _tag: "Timeout", phase: "whole-send", said: "send ceiling" })
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
      expect(yield* Effect.flip(Agent.ask(agent, "hi"))).toMatchObject({ _tag: "Unresponsive" })
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
        expect(yield* Fiber.join(fiber)).toMatchObject({ _tag: "Unresponsive" })
        expect(texts(delivered)).toEqual(["part 1 "])
        expect((yield* Scripted.Scripted).seen(a).turns).toBe(1)
        expect((yield* Scripted.Scripted).seen(b).turns).toBe(0)
        expect((yield* Heard).timed()).toEqual(["60000 Stalled"])
      }).pipe(Effect.provide(world({ script: { places: { [a]: [Scripted.stall(1)] } }, chain: [a, b] }))))
  }

  it.effect("the idle limit is a setting: given 10 s, a quiet answer ends at 10 s, announced at 5 s", () =>
    Effect.gen(function*() {
      const agent = yield* Agent.make(a, undefined, { idle: Option.some(Duration.seconds(10)) })
      const fiber = yield* Effect.forkChild(Effect.flip(Agent.ask(agent, "hi")))
      yield* TestClock.adjust("9999 millis")
      expect(fiber.pollUnsafe()).toBeUndefined()
      yield* TestClock.adjust("1 millis")
      expect(yield* Fiber.join(fiber)).toMatchObject({ _tag: "Unresponsive" })
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

  // 000, step 5: "configured exactly as the agent it left — carrying its effort, its permission rung,
  // the skills the flow gave it and the callbacks the agent is offering."
  it.effect("every setting reaches the stand-in unchanged", () =>
    Effect.gen(function*() {
      const settings = new Settings.Settings({
        effort: "high",
        permission: "read-only",
        webSearch: false,
        skills: ["review"],
        callbacks: ["approve"]
      })
      const agent = yield* Agent.make(a, settings)
      expect(yield* Agent.ask(agent, "hi")).toBe(`ok from ${b}`)
      const scripted = yield* Scripted.Scripted
      expect(scripted.seen(a).settings).toEqual([settings])
      expect(scripted.seen(b).settings).toEqual([settings])
    }).pipe(Effect.provide(world({ script: { places: { [a]: [Scripted.fail("ModelNotFound")] } }, chain: [a, b] }))))

  // 000: "Move a setting the CLI taking over cannot be told. ... a setting quietly ignored would be a setting that lies."
  for (
    const [setting, capability, reason] of [
      [{ effort: "high" }, { effort: false }, "codex cannot be told how hard to think (effort high)"],
      [{ permission: "read-only" }, { permission: false }, "codex cannot be given a permission rung (read-only)"],
      [{ skills: ["review"] }, { skills: false }, "codex cannot be given skills (review)"]
    ] as const
  ) {
    it.effect(`a move to a backend that cannot honour ${Object.keys(setting)[0]} stops with the notice`, () =>
      Effect.gen(function*() {
        const agent = yield* Agent.make(a, new Settings.Settings(setting))
        expect((yield* Effect.flip(Agent.ask(agent, "hi")))._tag).toBe("ModelNotFound")
        expect((yield* Heard).lines().at(-1)).toMatch(
          new RegExp(`the turn fails here: ${reason.replace(/[()]/g, "\\$&")}$`)
        )
        expect((yield* Scripted.Scripted).seen(b).opens).toBe(0)
      }).pipe(Effect.provide(world({
        script: { places: { [a]: [Scripted.fail("ModelNotFound")] }, capabilities: { codex: capability } },
        chain: [a, b]
      }))))
  }

  // 000: "a setting quietly ignored would be a setting that lies" — at the first place too.
  it.effect("an agent is not made at a place whose backend cannot honour its settings, and nothing is opened", () =>
    Effect.gen(function*() {
      const refused = yield* Effect.flip(Agent.make(b, new Settings.Settings({ skills: ["review"] })))
      expect(refused).toBeInstanceOf(Agent.SettingsRefused)
      expect(refused.message).toBe(
        `${b}: codex cannot be given skills (review); start at a place whose backend can, or leave the setting out`
      )
      const agent = yield* Agent.make(a, new Settings.Settings({ skills: ["review"] }))
      expect(yield* Agent.ask(agent, "hi")).toBe(`ok from ${a}`)
      expect((yield* Scripted.Scripted).seen(b).opens).toBe(0)
    }).pipe(
      Effect.provide(world({ script: { places: {}, capabilities: { codex: { skills: false } } }, chain: [a, b] }))
    ))

  it.effect("a setting the next backend cannot honour stops the walk: the turn fails as it failed, with a notice", () =>
    Effect.gen(function*() {
      const agent = yield* Agent.make(a, new Settings.Settings({ webSearch: false }))
      const failure = yield* Effect.flip(Agent.ask(agent, "hi"))
      expect(failure._tag).toBe("ModelNotFound")
      expect((yield* Heard).lines()).toEqual([
        "claude has no model a (retired, or never there); the turn fails here: codex cannot be told not to search the web"
      ])
      expect((yield* Scripted.Scripted).seen(b).opens).toBe(0)
    }).pipe(Effect.provide(world({
      script: { places: { [a]: [Scripted.fail("ModelNotFound")] }, capabilities: { codex: { webSearchOff: false } } },
      chain: [a, b]
    }))))

  it.effect("callbacks offered do not move to a backend that cannot be given them", () =>
    Effect.gen(function*() {
      const agent = yield* Agent.make(a, new Settings.Settings({ callbacks: ["approve"] }))
      expect((yield* Effect.flip(Agent.ask(agent, "hi")))._tag).toBe("ModelNotFound")
      expect((yield* Heard).lines()[0]).toMatch(/the turn fails here: codex cannot be given callbacks$/)
    }).pipe(Effect.provide(world({
      script: { places: { [a]: [Scripted.fail("ModelNotFound")] }, capabilities: { codex: { callbacks: false } } },
      chain: [a, b]
    }))))

  it.effect("ContextTooLong is taken once whatever a chain says", () =>
    Effect.gen(function*() {
      const agent = yield* Agent.make("claude@work/a")
      expect((yield* Effect.flip(Agent.ask(agent, "hi")))._tag).toBe("ContextTooLong")
      expect((yield* Scripted.Scripted).requests()).toBe(1)
      expect((yield* Heard).lines()[0]).toMatch(/the turn fails here: it is taken once, whatever a chain says$/)
    }).pipe(Effect.provide(world({
      script: { places: { "claude@work/a": [Scripted.fail("ContextTooLong")] } },
      chain: ["claude@work/a", b],
      accounts: { claude: ["work", "home"] },
      retrying: { "claude@work/a": [3, "constant"] }
    }))))

  const tooLong = Scripted.decide((prompt) =>
    prompt.history.length > 1 ? Scripted.fail("ContextTooLong") : Scripted.answer(`fits with ${prompt.history.length}`)
  )
  const once = (compacted: { done: boolean }) =>
    Layer.succeed(Compactor.Compactor, {
      compact: (prompt) =>
        Effect.sync(() => {
          if (compacted.done) return Option.none()
          compacted.done = true
          return Option.some([{ prompt: "summary", answer: "of it all" }, ...prompt.history.slice(2)])
        })
    })

  it.effect("with a Compactor: compact and resend, then trim the oldest exchange and resend", () =>
    Effect.gen(function*() {
      const agent = yield* Agent.make(a)
      for (const prompt of ["1", "2", "3", "4", "5"]) yield* Agent.ask(agent, prompt)
      const seen = (yield* Scripted.Scripted).seen(a)
      expect(seen.prompts.map((p) => p.history.map((e) => e.prompt))).toEqual([
        [],
        ["1"],
        ["1", "2"],
        ["summary"],
        ["summary", "3"],
        ["3"],
        ["3", "4"],
        ["4"]
      ])
      expect((yield* Heard).notices.map(({ notice }) => notice._tag === "Compacting" ? notice.how : notice._tag))
        .toEqual([
          "compact",
          "trim",
          "trim"
        ])
    }).pipe(
      Effect.provide(world({ script: { places: { [a]: [tooLong] } }, chain: [a, b] })),
      Effect.provide(once({ done: false }))
    ))

  it.effect("with a Compactor, a prompt too long on its own fails once nothing is left to trim", () =>
    Effect.gen(function*() {
      const agent = yield* Agent.make(a)
      yield* Agent.ask(agent, "1")
      expect((yield* Effect.flip(Agent.ask(agent, "2")))._tag).toBe("ContextTooLong")
      expect((yield* Heard).lines().at(-1)).toMatch(/the turn fails here: nothing is left to trim$/)
      expect((yield* Scripted.Scripted).seen(b).turns).toBe(0)
    }).pipe(
      Effect.provide(world({
        script: { places: { [a]: [Scripted.answer("x"), Scripted.fail("ContextTooLong")] } },
        chain: [a, b]
      })),
      Effect.provide(once({ done: true }))
    ))

  it.effect("a turn that lands looks nothing up: no steps read, no notice, no health written", () =>
    Effect.gen(function*() {
      const agent = yield* Agent.make(a)
      yield* Agent.ask(agent, "hi")
      yield* Agent.ask(agent, "again")
      expect(reads.count).toBe(0)
      expect((yield* Heard).notices).toEqual([])
      expect(yield* Effect.flatMap(Health.Health, (health) => health.snapshot)).toEqual([])
    }).pipe(Effect.provide(counted), Effect.provide(world({ script: { places: {} }, chain: [a, b] }))))

  it.effect("a cooling place is skipped by the next agent without a request", () =>
    Effect.gen(function*() {
      const first = yield* Effect.forkChild(Agent.ask(yield* Agent.make("claude@work/a"), "hi"))
      yield* TestClock.adjust("30 seconds")
      yield* Fiber.join(first)
      const second = yield* Agent.make("claude@work/a")
      expect(yield* Agent.ask(second, "hi")).toBe("ok from claude@home/a")
      expect((yield* Scripted.Scripted).seen("claude@work/a").turns).toBe(2)
      expect((yield* Heard).lines().slice(2)).toEqual([
        "claude@work/a is cooling down for another 30s; skipping it",
        "claude@work/a was skipped; carrying on as home"
      ])
    }).pipe(Effect.provide(world({
      script: { places: { "claude@work/a": [Scripted.fail("QuotaExhausted")] } },
      accounts: { claude: ["work", "home"] }
    }))))

  it.effect("a failure that no step answers ends the turn with a notice", () =>
    Effect.gen(function*() {
      const agent = yield* Agent.make(a)
      expect(yield* Effect.flip(Agent.ask(agent, "hi"))).toBeInstanceOf(Failure.Unknown)
      expect((yield* Heard).lines()).toEqual([
        "claude failed: scripted Unknown; the turn fails here: no account or place is left to try"
      ])
    }).pipe(Effect.provide(world({ script: { places: { [a]: [Scripted.fail("Unknown")] } } }))))
})

const reads = { count: 0 }
const counted = Layer.effect(
  Steps.Steps,
  Effect.map(Steps.Steps, (steps) =>
    Steps.Steps.of({
      ...steps,
      chain: (place) => Effect.suspend(() => (reads.count += 1, steps.chain(place))),
      get: (place) => Effect.suspend(() => (reads.count += 1, steps.get(place)))
    }))
)
