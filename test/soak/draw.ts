/**
 * What a soak trial draws: a chain of scripted and HTTP places, the agent's policies and budget,
 * the breaker, and for every request a fault (or an answer).
 */
import type { Agent, Health } from "@fallback/core"
import { Answer, Failure, Policy } from "@fallback/core"
import { MockProvider } from "@fallback/testkit"
import { Scripted } from "@fallback/testkit"
import * as Duration from "effect/Duration"
import * as Option from "effect/Option"
import type { Random } from "./random.js"

/** Every answer of the design, its waits a thousand times shorter, so a trial's waits stay short. */
export const scaled: Answer.Table = Object.fromEntries(
  Object.entries(Answer.primary).map(([kind, answer]) => {
    const short = (d: Duration.Duration) => Duration.millis(Duration.toMillis(d) / 1000)
    return [
      kind,
      new Answer.Answer({
        ...answer,
        here: answer.here.map(short),
        atLeast: short(answer.atLeast),
        cooldown: answer.cooldown === undefined ? undefined : short(answer.cooldown)
      })
    ]
  })
) as Answer.Table

/** A place of a trial: scripted (CLI `s1`…) or an OpenAI-compatible provider on the trial's mock (`http`). */
export interface Drawn {
  readonly place: string
  readonly http: boolean
}

/** The trial's chain: 2 to 4 places, about a third of them HTTP. */
export const chainOf = (random: Random): Array<Drawn> =>
  Array.from(
    { length: random.int(2, 4) },
    (_, i) =>
      random.chance(0.35) ? { place: `http/m${i}`, http: true } : { place: `s${random.int(1, 3)}/m${i}`, http: false }
  )

/** The agent's options: answers scaled, first byte, send ceiling, watchdog, candidates, moves and budget. */
export const optionsOf = (random: Random): Agent.Options => ({
  answers: scaled,
  firstByte: Option.some(Duration.millis(random.int(40, 250))),
  idle: Option.none(),
  send: random.chance(0.5) ? Option.some(Duration.millis(random.int(150, 900))) : Option.none(),
  watchdog: random.chance(0.5)
    ? Option.some({
      every: Duration.millis(random.int(30, 150)),
      retry: Duration.millis(random.int(10, 40)),
      failures: random.int(1, 3),
      within: Duration.millis(random.int(10, 60))
    })
    : Option.none(),
  candidates: {
    skipFailedProvider: random.chance(0.3),
    fitWindow: random.chance(0.3),
    check: random.chance(0.3) ? Option.some(Duration.millis(random.int(10, 60))) : Option.none(),
    rounds: random.int(1, 2)
  },
  moved: random.chance(0.5) ? "stays" : "returns",
  fallback: random.chance(0.9),
  budget: { deadline: Duration.millis(random.int(150, 1500)), attempts: random.int(1, 8) }
})

/** The breaker: 1 to 5 failures park a place for 50 to 400 ms. */
export const breakerOf = (random: Random): Health.Breaker => ({
  failures: random.int(1, 5),
  park: Duration.millis(random.int(50, 400))
})

/** A retrying step at a place (tries, policy), drawn for about a quarter of places. */
export const retryingOf = (random: Random): readonly [number, Policy.Name] | undefined =>
  random.chance(0.25) ? [random.int(1, 3), random.pick(Policy.names)] : undefined

/**
 * What a scripted request plays. A stream that stalls after its first content is drawn only where
 * a send ceiling is set: after the first content nothing else bounds it (a watchdog whose probes
 * pass lets it run), so without one the turn would never end.
 */
export const outcomeOf = (random: Random, stalls: boolean): Scripted.Outcome => {
  const kind = () => random.pick(Failure.kinds)
  const roll = random.next()
  if (roll < 0.45) return Scripted.answer("scripted answer")
  if (roll < 0.65) return Scripted.fail(kind())
  if (roll < 0.7) return Scripted.hang
  if (roll < 0.8) return Scripted.die(random.int(0, 3), kind())
  if (roll < 0.85) return stalls ? Scripted.stall(random.int(1, 3)) : Scripted.hang
  if (roll < 0.95) return Scripted.delay(Duration.millis(random.int(5, 300)), Scripted.answer("slow answer"))
  return Scripted.delay(Duration.millis(random.int(5, 100)), Scripted.fail(kind()))
}

/** The mock's script for one turn: for each HTTP place, a fault for its next few requests. */
export const rulesOf = (random: Random, chain: ReadonlyArray<Drawn>): Array<MockProvider.Rule> =>
  chain.filter((drawn) => drawn.http).flatMap((drawn) =>
    random.chance(0.5)
      ? []
      : [{
        fault: random.pick(faults),
        model: drawn.place.slice(drawn.place.indexOf("/") + 1),
        times: random.int(1, 3)
      }]
  )

const faults: ReadonlyArray<MockProvider.Fault> = MockProvider.faults.filter((fault) =>
  fault !== "answer" && !MockProvider.malformed.includes(fault)
)
