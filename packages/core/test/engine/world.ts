import { Scripted } from "@fallback/testkit"
import type { Duration } from "effect"
import { Arbitrary, Clock, Context, Effect, Exit, Layer, Schema } from "effect"
import type { Policy } from "../../src/index.js"
import { Account, Accounts, ConfigFile, Health, Notice, Steps } from "../../src/index.js"

/** A whole world for an agent: the scripted backends, steps, accounts, health and a notice log. */
export interface Setup {
  readonly script: Scripted.Script
  readonly chain?: ReadonlyArray<string>
  readonly accounts?: Readonly<Record<string, ReadonlyArray<string>>>
  readonly retrying?: Readonly<Record<string, readonly [number, Policy.Name, Duration.Duration?]>>
  readonly breaker?: Health.Breaker
}

/** Every notice published, with the time it was published at. */
export class Heard extends Context.Service<Heard, {
  readonly notices: Array<{ readonly at: number; readonly notice: Notice.Notice }>
  /** The notices as they are written. */
  readonly lines: () => ReadonlyArray<string>
  /** `<millis> <tag>` of each notice. */
  readonly timed: () => ReadonlyArray<string>
}>()("test/Heard") {
  static readonly layer = Layer.sync(Heard, () => {
    const notices: Array<{ readonly at: number; readonly notice: Notice.Notice }> = []
    return {
      notices,
      lines: () => notices.map(({ notice }) => Notice.format(notice)),
      timed: () => notices.map(({ at, notice }) => `${at} ${notice._tag}`)
    }
  })
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
        for (const name of names) yield* accounts.add(cli, new Account.Account({ name }))
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
    heard.pipe(Layer.provideMerge(Heard.layer))
  )
  return Layer.provideMerge(written(setup), base)
}

/** Texts of a turn's events. */
export const texts = (events: ReadonlyArray<{ readonly _tag: string }>) =>
  events.flatMap((event) => "text" in event && event._tag === "Text" ? [event.text as string] : [])

/** A whole number from `min` to `max`, both included. */
export const between = (min: number, max: number): Arbitrary.Arbitrary<number> =>
  Arbitrary.schema(Schema.Int.check(Schema.isBetween({ minimum: min, maximum: max })))

/** One of the values. */
export const oneOf = <const A extends string | number | boolean>(values: ReadonlyArray<A>): Arbitrary.Arbitrary<A> =>
  Arbitrary.schema(Schema.Literals(values))

/** What one of the arbitraries gives, each as likely as the others. */
export const anyOf = <A>(...arbitraries: ReadonlyArray<Arbitrary.Arbitrary<A>>): Arbitrary.Arbitrary<A> =>
  Arbitrary.flatMap(between(0, arbitraries.length - 1), (i) => arbitraries[i]!)

/** At least `minLength` of the values, in any order. */
export const shuffled = <A>(values: ReadonlyArray<A>, minLength: number): Arbitrary.Arbitrary<Array<A>> =>
  Arbitrary.map(
    Arbitrary.all({
      keys: Arbitrary.array(between(0, 1_000_000), { minLength: values.length, maxLength: values.length }),
      length: between(minLength, values.length)
    }),
    ({ keys, length }) =>
      values.map((value, i) => [keys[i]!, value] as const).sort(([a], [b]) => a - b).slice(0, length).map(([, v]) => v)
  )

/** The error of an exit whose cause is one failure and nothing else (v3's `cause._tag === "Fail"`). */
export const failedWith = <A, E>(exit: Exit.Exit<A, E>): E | undefined => {
  if (Exit.isSuccess(exit) || exit.cause.reasons.length !== 1) return undefined
  const [reason] = exit.cause.reasons
  return reason!._tag === "Fail" ? reason!.error : undefined
}
