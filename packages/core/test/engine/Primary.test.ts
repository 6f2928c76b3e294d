/**
 * Conformance with the primary design (reference 000): every failure kind's answer, walked on the
 * TestClock, with the tries, the waits to the millisecond, where the turn ends, and the notices.
 */
import { describe, expect, it } from "@effect/vitest"
import { Scripted } from "@fallback/testkit"
import { DateTime, Duration, Effect, Exit, Fiber, Option } from "effect"
import { TestClock } from "effect/testing"
import { Agent, Failure, Health, Place, Preset } from "../../src/index.js"
import { Heard, world } from "./world.js"

const work = "claude@work/opus"
const home = "claude@home/opus"
const codex = "codex/gpt"

interface Row {
  readonly kind: Failure.Kind
  /** When each request at work went out. */
  readonly work: ReadonlyArray<number>
  /** Where the turn answered, and when. */
  readonly ends: readonly [string, number] | "fails"
  /** The notices, in order, as `time tag`. */
  readonly notices: ReadonlyArray<string>
  readonly retrying?: readonly [number, "constant"]
}

const rows: ReadonlyArray<Row> = [
  {
    kind: "RateLimited",
    work: [0, 30_000],
    ends: [home, 30_000],
    notices: ["0 Retrying", "30000 Moving"]
  },
  {
    kind: "RateLimited",
    work: [0, 30_000, 60_000, 90_000],
    ends: [home, 90_000],
    notices: ["0 Retrying", "30000 Retrying", "60000 Retrying", "90000 Moving"],
    retrying: [2, "constant"]
  },
  // "Too many requests — HTTP 429, a quota spent, …: Waits at least 30 seconds, then walks the account chain."
  { kind: "QuotaExhausted", work: [0, 30_000], ends: [home, 30_000], notices: ["0 Retrying", "30000 Moving"] },
  { kind: "AuthRefused", work: [0], ends: [home, 0], notices: ["0 Moving"] },
  { kind: "ModelNotFound", work: [0], ends: [codex, 0], notices: ["0 Moving"] },
  {
    kind: "StoreBusy",
    // "Its own store was busy …: Three goes here, a second apart."
    work: [0, 1000, 2000],
    ends: [codex, 2000],
    notices: ["0 Retrying", "1000 Retrying", "2000 Moving"]
  },
  { kind: "ConnectionLost", work: [0, 0], ends: [home, 0], notices: ["0 Retrying", "0 Moving"] },
  { kind: "Killed", work: [0, 1000], ends: [home, 1000], notices: ["0 Retrying", "1000 Moving"] },
  { kind: "NotInstalled", work: [0], ends: [codex, 0], notices: ["0 Moving"] },
  { kind: "ContextTooLong", work: [0], ends: "fails", notices: ["0 Stopping"] },
  // A usage error of the CLI's, for an argument fallback gave it: the same at every account and place.
  { kind: "ArgumentsRefused", work: [0], ends: "fails", notices: ["0 Stopping"] },
  // "A prompt the model refused is the same refusal every time": taken once.
  { kind: "Refused", work: [0], ends: "fails", notices: ["0 Stopping"] },
  // "Anything else: … the goes the step asked for, the step's own wait, and then the account chain."
  { kind: "Timeout", work: [0], ends: [home, 0], notices: ["0 Moving"] },
  {
    kind: "Timeout",
    work: [0, 1000, 2000],
    ends: [home, 2000],
    notices: ["0 Retrying", "1000 Retrying", "2000 Moving"],
    retrying: [2, "constant"]
  },
  { kind: "Unresponsive", work: [0], ends: [home, 0], notices: ["0 Moving"] },
  {
    kind: "Unresponsive",
    work: [0, 1000, 2000],
    ends: [home, 2000],
    notices: ["0 Retrying", "1000 Retrying", "2000 Moving"],
    retrying: [2, "constant"]
  },
  { kind: "Unknown", work: [0], ends: [home, 0], notices: ["0 Moving"] },
  {
    kind: "Unknown",
    work: [0, 1000, 2000],
    ends: [home, 2000],
    notices: ["0 Retrying", "1000 Retrying", "2000 Moving"],
    retrying: [2, "constant"]
  }
]

const row = (kind: Failure.Kind) => rows.find((row) => row.kind === kind)!

const setup = (row: Row, whole = false) =>
  world({
    script: { places: { [work]: [Scripted.fail(row.kind)] }, whole },
    chain: [work, codex],
    accounts: { claude: ["work", "home"] },
    ...(row.retrying === undefined ? {} : { retrying: { [work]: row.retrying } })
  })

describe("primary preset (000): each kind's answer", () => {
  it("answers every kind", () => {
    expect(new Set(rows.map((row) => row.kind))).toEqual(new Set(Failure.kinds))
  })

  // Every row twice: with the sessions' streams, and with sessions that also answer whole (`reply`).
  for (const [row, whole] of rows.flatMap((row) => [[row, false], [row, true]] as const)) {
    const name = `${row.kind}${row.retrying ? ` with ${row.retrying[0]} ${row.retrying[1]} tries` : ""}`
    it.effect(whole ? `${name}, answered whole` : name, () =>
      Effect.gen(function*() {
        const agent = yield* Agent.make(work, undefined, Preset.primary.options)
        const fiber = yield* Effect.forkChild(Agent.ask(agent, "hello"))
        yield* TestClock.adjust("1 hour")
        const exit = yield* Fiber.await(fiber)
        const scripted = yield* Scripted.Scripted
        const heard = yield* Heard
        expect(scripted.seen(work).at).toEqual(row.work)
        expect(heard.timed()).toEqual(row.notices)
        if (row.ends === "fails") {
          expect(Exit.isFailure(exit)).toBe(true)
          expect(scripted.requests()).toBe(row.work.length)
          expect(yield* agent.at).toEqual(Place.Place.make({ cli: "claude", account: "work", model: "opus" }))
        } else {
          const [place, at] = row.ends
          expect(exit).toEqual(Exit.succeed(`ok from ${place}`))
          expect(scripted.seen(place).at).toEqual([at])
          expect(Place.format(yield* agent.at)).toBe(place)
          expect(scripted.requests()).toBe(row.work.length + 1)
        }
      }).pipe(Effect.provide(setup(row, whole))))
  }

  // 000: "The time the retrying is given is checked before a wait rather than after it, so a turn
  // is never started knowing the time it was given is already spent."
  it.effect("the step's timeout is checked before each wait: no go starts past it", () =>
    Effect.gen(function*() {
      const agent = yield* Agent.make(work)
      const fiber = yield* Effect.forkChild(Agent.ask(agent, "hello"))
      yield* TestClock.adjust("1 minute")
      expect(yield* Fiber.join(fiber)).toBe(`ok from ${home}`)
      expect((yield* Scripted.Scripted).seen(work).at).toEqual([0, 1000, 2000])
      expect((yield* Scripted.Scripted).seen(home).at).toEqual([2000])
      expect((yield* Heard).lines().map((line) => line.replace(/^.*; /, ""))).toEqual([
        "trying again in 1s (1 of 5)",
        "trying again in 1s (2 of 5)",
        "carrying on as home"
      ])
    }).pipe(Effect.provide(world({
      script: { places: { [work]: [Scripted.fail("Unknown")] } },
      accounts: { claude: ["work", "home"] },
      retrying: { [work]: [5, "constant", Duration.millis(2500)] }
    }))))

  // 000: "fibonacci 1s, 1s, 2s, 3s, 5s": the engine's waits are the policy's Schedule.
  it.effect("the waits at a place are the step's policy: fibonacci through the engine", () =>
    Effect.gen(function*() {
      const agent = yield* Agent.make(work)
      const fiber = yield* Effect.forkChild(Agent.ask(agent, "hello"))
      yield* TestClock.adjust("1 minute")
      expect(yield* Fiber.join(fiber)).toBe(`ok from ${home}`)
      expect((yield* Scripted.Scripted).seen(work).at).toEqual([0, 1000, 2000, 4000, 7000, 12_000])
    }).pipe(Effect.provide(world({
      script: { places: { [work]: [Scripted.fail("Unknown")] } },
      accounts: { claude: ["work", "home"] },
      retrying: { [work]: [5, "fibonacci"] }
    }))))

  it.effect("the notices read as the reference page's lines", () =>
    Effect.gen(function*() {
      const agent = yield* Agent.make(work)
      const fiber = yield* Effect.forkChild(Agent.ask(agent, "hello"))
      yield* TestClock.adjust("1 minute")
      yield* Fiber.join(fiber)
      expect((yield* Heard).lines()).toEqual([
        "claude@work is rate-limited; a wait, another account or another place is what answers it; trying again in 30s (1 of 1)",
        "claude@work is rate-limited; a wait, another account or another place is what answers it; carrying on as home"
      ])
    }).pipe(Effect.provide(setup(row("RateLimited")))))

  it.effect("a wait is announced before it starts, and a Retry-After longer than 30 s is honoured", () =>
    Effect.gen(function*() {
      const agent = yield* Agent.make(work)
      const fiber = yield* Effect.forkChild(Agent.ask(agent, "hello"))
      yield* TestClock.adjust("0 millis")
      const heard = yield* Heard
      expect(heard.lines()[0]).toMatch(/trying again in 45s \(1 of 1\)$/)
      yield* TestClock.adjust("44999 millis")
      expect((yield* Scripted.Scripted).seen(work).at).toEqual([0])
      yield* TestClock.adjust("1 millis")
      expect((yield* Scripted.Scripted).seen(work).at).toEqual([0, 45_000])
      expect(yield* Fiber.join(fiber)).toBe(`ok from ${home}`)
    }).pipe(Effect.provide(world({
      script: {
        places: {
          [work]: [
            Scripted.fail((place) =>
              new Failure.RateLimited({ place, said: Failure.said("429"), retryAfter: Duration.seconds(45) })
            )
          ]
        }
      },
      accounts: { claude: ["work", "home"] }
    }))))

  it.effect("quota: with no time named, it is the rate limit's row: the place cools down as a rate limit does", () =>
    Effect.gen(function*() {
      const agent = yield* Agent.make(work)
      const fiber = yield* Effect.forkChild(Agent.ask(agent, "hello"))
      yield* TestClock.adjust("30 seconds")
      expect(yield* Fiber.join(fiber)).toBe(`ok from ${home}`)
      const [entry] = yield* Effect.flatMap(Health.Health, (health) => health.snapshot)
      expect(Place.format(entry!.place)).toBe(work)
      expect(entry!.coolingUntil).toEqual(Option.some(60_000))
    }).pipe(Effect.provide(setup(row("QuotaExhausted")))))

  it.effect("quota: the place cools down until the time the failure names", () =>
    Effect.gen(function*() {
      const agent = yield* Agent.make(work)
      const fiber = yield* Effect.forkChild(Agent.ask(agent, "hello"))
      yield* TestClock.adjust("30 seconds")
      yield* Fiber.join(fiber)
      const [entry] = yield* Effect.flatMap(Health.Health, (health) => health.snapshot)
      expect(entry!.coolingUntil).toEqual(Option.some(Duration.toMillis(Duration.hours(5))))
    }).pipe(Effect.provide(world({
      script: {
        places: {
          [work]: [Scripted.fail((place) =>
            new Failure.QuotaExhausted({
              place,
              said: Failure.said("402"),
              until: DateTime.makeUnsafe(Duration.toMillis(Duration.hours(5)))
            })
          )]
        }
      },
      accounts: { claude: ["work", "home"] }
    }))))

  it.effect("refused credentials: the notice says the account it left needs signing in", () =>
    Effect.gen(function*() {
      const agent = yield* Agent.make(work)
      yield* Agent.ask(agent, "hello")
      expect((yield* Heard).lines()).toEqual([
        "claude@work refused the credentials (account work needs signing in again); another account or another place is what answers it; carrying on as home"
      ])
    }).pipe(Effect.provide(setup(row("AuthRefused")))))

  it.effect("killed: the notice names the signal, and the session is reopened resuming its id", () =>
    Effect.gen(function*() {
      const agent = yield* Agent.make(work)
      const fiber = yield* Effect.forkChild(Agent.ask(agent, "hello"))
      yield* TestClock.adjust("1 second")
      yield* Fiber.join(fiber)
      expect((yield* Heard).lines()[0]).toBe(
        "claude@work was killed by SIGKILL rather than answering (the machine may be out of memory); reopening and resuming, another account or another place is what answers it; reopening and trying again in 1s (1 of 1)"
      )
      const seen = (yield* Scripted.Scripted).seen(work)
      expect(seen.opens).toBe(2)
      expect(seen.closes).toBe(1)
      expect(seen.resumed).toEqual([undefined, `${work}#1`])
    }).pipe(Effect.provide(setup(row("Killed")))))

  it.effect("not installed: the failure says which line installs it", () =>
    Effect.gen(function*() {
      const agent = yield* Agent.make(work)
      yield* Agent.ask(agent, "hello")
      expect((yield* Heard).lines()).toEqual([
        "claude is not installed here (install it with: npm install -g claude); another place is what answers it; carrying on at codex/gpt"
      ])
    }).pipe(Effect.provide(setup(row("NotInstalled")))))

  for (const whole of [false, true]) {
    // A first byte that does not come is "anything else" (000): the step's goes (none here), then the account chain.
    it.effect(`a first byte that does not come in 30 s yields to the next account${whole ? ", answered whole" : ""}`, () =>
      Effect.gen(function*() {
        const agent = yield* Agent.make(work)
        const fiber = yield* Effect.forkChild(Agent.ask(agent, "hello"))
        yield* TestClock.adjust("29999 millis")
        expect((yield* Scripted.Scripted).seen(home).turns).toBe(0)
        yield* TestClock.adjust("1 millis")
        expect(yield* Fiber.join(fiber)).toBe(`ok from ${home}`)
        expect((yield* Heard).lines()).toEqual([
          "claude@work sent nothing within 30s (the first-byte limit; --first-byte gives it longer); another account or another place is what answers it; carrying on as home"
        ])
        expect((yield* Scripted.Scripted).seen(work).closes).toBe(0)
      }).pipe(Effect.provide(world({
        script: { places: { [work]: [Scripted.hang] }, whole },
        chain: [work, codex],
        accounts: { claude: ["work", "home"] }
      }))))
  }
})
