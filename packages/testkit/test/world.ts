import type { Policy } from "@fallback/core"
import { Accounts, ConfigFile, Health, Notice, Steps } from "@fallback/core"
import type { Duration } from "effect"
import { Clock, Effect, Layer } from "effect"
import { Scripted } from "../src/index.js"

/** A whole world for an agent: the scripted backends, steps, accounts, health and a notice log. */
export interface Setup {
  readonly script: Scripted.Script
  readonly chain?: ReadonlyArray<string>
  readonly accounts?: Readonly<Record<string, ReadonlyArray<string>>>
  readonly retrying?: Readonly<Record<string, readonly [number, Policy.Name, Duration.Duration?]>>
  readonly breaker?: Health.Breaker
}

/** Every notice published, with the time it was published at. */
export class Heard extends Effect.Service<Heard>()("test/Heard", {
  sync: () => ({ notices: [] as Array<{ readonly at: number; readonly notice: Notice.Notice }> })
}) {
  lines() {
    return this.notices.map(({ notice }) => Notice.format(notice))
  }
  timed() {
    return this.notices.map(({ at, notice }) => `${at} ${notice._tag}`)
  }
}

const heard = Layer.effect(
  Notice.Notices,
  Effect.map(Heard, (heard): Notice.Channel => ({
    publish: (notice) => Effect.map(Clock.currentTimeMillis, (at) => void heard.notices.push({ at, notice })),
    watch: Effect.die("not watched in tests")
  }))
)

const written = (setup: Setup) =>
  Layer.effectDiscard(
    Effect.gen(function*() {
      const steps = yield* Steps.Steps
      const accounts = yield* Accounts.Accounts
      const chain = setup.chain ?? []
      for (let i = 1; i < chain.length; i++) yield* steps.points(chain[i - 1]!, chain[i]!)
      for (const [place, [tries, policy, timeout]] of Object.entries(setup.retrying ?? {})) {
        yield* steps.retrying(place, tries, policy, timeout)
      }
      for (const [cli, names] of Object.entries(setup.accounts ?? {})) {
        for (const name of names) yield* accounts.add(cli, new ConfigFile.Account({ name }))
      }
    }).pipe(Effect.orDie)
  )

/** The layer of a world. */
export const world = (setup: Setup) => {
  const store = Layer.mergeAll(Steps.Steps.layer, Accounts.Accounts.layer).pipe(
    Layer.provide(ConfigFile.Store.layerMemory())
  )
  const base = Layer.mergeAll(
    Scripted.Scripted.layer({
      ...setup.script,
      clis: [...(setup.script.clis ?? []), ...(setup.chain ?? []).map((place) => place.slice(0, place.search(/[@/]/)))]
    }),
    store,
    Health.Health.layerMemory(setup.breaker),
    heard.pipe(Layer.provideMerge(Heard.Default))
  )
  return Layer.provideMerge(written(setup), base)
}

/** Texts of a turn's events. */
export const texts = (events: ReadonlyArray<{ readonly _tag: string }>) =>
  events.flatMap((event) => "text" in event && event._tag === "Text" ? [event.text as string] : [])
