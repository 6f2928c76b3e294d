/**
 * A scripted outage through a 3-place chain, with the notices a watcher sees as the turn
 * recovers. The clock is simulated, so the minute of waiting takes no time.
 *
 *   npx tsx --conditions=@fallback/source examples/outage.ts
 */
import { Account, Accounts, Agent, ConfigFile, Health, Notice, Place, Steps } from "@fallback/core"
import { Scripted } from "@fallback/testkit"
import { Clock, Console, Effect, Fiber, Layer, Stream } from "effect"
import { TestClock } from "effect/testing"

const [work, codex, deepseek] = ["claude@work/claude-opus-5", "codex@key/gpt-5.6-sol", "dsh/deepseek-v4-flash"]

const outage = Scripted.Scripted.layer({
  places: {
    [work]: [Scripted.fail("RateLimited")],
    "claude@home/claude-opus-5": [Scripted.fail("QuotaExhausted")],
    [codex]: [Scripted.hang],
    [deepseek]: [Scripted.answer("Here is the refactor you asked for.")]
  },
  clis: ["dsh"]
})

const config = Layer.mergeAll(Steps.Steps.layer, Accounts.Accounts.layer).pipe(
  Layer.provide(ConfigFile.Store.layerMemory())
)

const seconds = Effect.map(Clock.currentTimeMillis, (millis) => `[+${String(millis / 1000).padStart(3)}s]`)

const program = Effect.gen(function*() {
  const steps = yield* Steps.Steps
  yield* steps.points(work, codex)
  yield* steps.points(codex, deepseek)
  const accounts = yield* Accounts.Accounts
  yield* accounts.add("claude", new Account.Account({ name: "work" }))
  yield* accounts.add("claude", new Account.Account({ name: "home" }))

  const watched = yield* Effect.flatMap(Notice.Notices, (notices) => notices.watch)
  const printed = yield* Effect.forkChild(
    Stream.runForEach(
      watched,
      (notice) => Effect.flatMap(seconds, (at) => Console.log(`${at} ${Notice.format(notice)}`))
    )
  )

  yield* Console.log(`chain: ${(yield* steps.chain(work)).map(Place.format).join(" → ")}`)
  const agent = yield* Agent.make(work)
  const turn = yield* Effect.forkChild(Effect.zip(Agent.ask(agent, "refactor the parser"), seconds))
  yield* TestClock.adjust("5 minutes")
  const [answer, at] = yield* Fiber.join(turn)
  yield* Effect.repeat(Effect.yieldNow, { times: 10 })
  yield* Fiber.interrupt(printed)
  yield* Console.log(`${at} answer from ${Place.format(yield* agent.at)}: ${answer}`)
  yield* Console.log(`next turn goes straight to ${Place.format(yield* agent.at)} (an agent that moved stays moved)`)
})

program.pipe(
  Effect.scoped,
  Effect.provide(Layer.mergeAll(outage, config, Health.Health.layerMemory(), Notice.Notices.layer)),
  Effect.provide(TestClock.layer()),
  Effect.runPromise
)
