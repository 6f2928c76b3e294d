import { describe, expect, it } from "@effect/vitest"
import { Scripted } from "@fallback/testkit"
import { Effect, Exit, Fiber, Layer, Option, Scope } from "effect"
import { TestClock } from "effect/testing"
import { Agent, Compactor, Failure, Health, Place, Settings, Steps } from "../../src/index.js"
import { Heard, world } from "./world.js"

const [a, b, c, d] = ["claude/a", "codex/b", "gemini/c", "opencode/d"]

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

  it.effect("ContextTooLong is taken once at its place, and fails where no place declares a larger window", () =>
    Effect.gen(function*() {
      const agent = yield* Agent.make("claude@work/a")
      expect((yield* Effect.flip(Agent.ask(agent, "hi")))._tag).toBe("ContextTooLong")
      expect((yield* Scripted.Scripted).requests()).toBe(1)
      expect((yield* Heard).lines()[0]).toMatch(
        /the turn fails here: it is taken once here, and no place with a larger context window is left$/
      )
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
      expect((yield* Heard).lines().at(-1)).toMatch(
        /the turn fails here: nothing is left to trim, and no place with a larger context window is left$/
      )
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
