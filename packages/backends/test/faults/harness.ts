/**
 * The matrix's harness: a chain of places over one OpenAI-compatible provider on the testkit
 * mock (real HTTP on 127.0.0.1), an agent made with a preset, a turn taken whole or streamed, and
 * the TestClock moved on in small steps whenever no reply is on its way, so waits and limits pass
 * in test time while the HTTP itself runs for real. The mock keeps its log on the same TestClock.
 */
import * as Agent from "@fallback/core/Agent"
import * as Backend from "@fallback/core/Backend"
import type * as Failure from "@fallback/core/Failure"
import * as Notice from "@fallback/core/Notice"
import * as Preset from "@fallback/core/Preset"
import * as Settings from "@fallback/core/Settings"
import * as Steps from "@fallback/core/Steps"
import type { MockProvider } from "@fallback/testkit"
import { Clock, Duration, Effect, Exit, Layer, Option, Stream } from "effect"
import type * as Scope from "effect/Scope"
import { TestClock } from "effect/testing"
import * as OpenAiCompatible from "../../src/OpenAiCompatible.js"
import { onClient, withEnv } from "../transports.js"
import type { Limit, Mode, PresetName, Row } from "./table.js"

export const env = withEnv({ LOCAL_KEY: "local-key" })

/** The preset by name; `api` is read by name so the matrix runs (and says so) before it lands. */
export const presetOf = (name: PresetName): Preset.Preset | undefined =>
  (Preset as unknown as Record<string, Preset.Preset | undefined>)[name]

/** The chain's models for a row. */
export const chainOf = (row: Row): ReadonlyArray<string> => [row.a ?? "a", row.b ?? "b", "c"]

/** The notices published, as a person reads them. */
export const heard: Array<string> = []

const notices = Layer.succeed(Notice.Notices, {
  publish: (notice) => Effect.sync(() => void heard.push(Notice.format(notice))),
  watch: Effect.die("not watched in tests")
})

/** The backends, steps (a → b → c), health and notices of a row's world. */
export const world = (url: string, row: Row, preset: Preset.Preset) => {
  const chain = chainOf(row)
  const models = chain.map((name) => ({
    name,
    ...(row.windows?.[name] === undefined ? {} : { contextWindow: row.windows[name] }),
    ...(row.continues?.includes(name) ? { continues: true } : {})
  }))
  const backends = Layer.unwrap(Effect.map(
    OpenAiCompatible.make({
      name: "local",
      baseUrl: `${url}/v1`,
      key: { fromEnv: "LOCAL_KEY" },
      models: models as never
    }),
    (backend) => Backend.Backends.layer([backend])
  )).pipe(Layer.provide(onClient.layer))
  const written = Layer.effectDiscard(
    Effect.gen(function*() {
      const steps = yield* Steps.Steps
      for (let i = 1; i < chain.length; i++) yield* steps.points(`local/${chain[i - 1]}`, `local/${chain[i]}`)
    }).pipe(Effect.orDie)
  )
  return Layer.provideMerge(
    written,
    Layer.mergeAll(backends, Steps.Steps.layerMemory, Preset.health(preset), notices)
  )
}

/** What one turn gave its caller. */
export interface Got {
  /** The text events the caller was handed, joined (streamed), or the answer's text (whole). */
  readonly text: string
  /** The final result's text, when there was one. */
  readonly result?: string
  readonly model?: string
  readonly usage?: Backend.Usage
  readonly error?: Failure.Failure | { readonly _tag: string; readonly [key: string]: unknown }
  /** The models the turn's `Moved` events moved it to, in order. */
  readonly moves: ReadonlyArray<string>
  /** The mock's log length when the turn began. */
  readonly from: number
}

/** Takes one turn, whole (the events `Agent.ask` reads) or streamed (the events as the caller gets them). */
export const take = (
  agent: Agent.Agent,
  prompt: string,
  mode: Mode,
  from: number
): Effect.Effect<Got> =>
  Effect.gen(function*() {
    const events: Array<Backend.Event> = []
    const run = mode === "whole"
      ? Effect.map(agent.reply(prompt), (all) => void events.push(...all))
      : Stream.runForEach(agent.turn(prompt), (event) => Effect.sync(() => void events.push(event)))
    const exit = yield* Effect.exit(run)
    const result = events.find((event) => event._tag === "Result")
    const texts = events.flatMap((event) => event._tag === "Text" ? [event.text] : [])
    const said = result as (Backend.Event & { readonly model?: string; readonly usage?: Backend.Usage }) | undefined
    return {
      text: mode === "whole" ? Backend.textOf(events) : texts.join(""),
      ...(result === undefined ? {} : { result: result.text }),
      ...(said?.model === undefined ? {} : { model: said.model }),
      ...(said?.usage === undefined ? {} : { usage: said.usage }),
      ...(Exit.isFailure(exit) ? { error: errorOf(exit) } : {}),
      moves: events.flatMap((event) => event._tag === "Moved" ? [event.to.model] : []),
      from
    }
  })

const errorOf = (exit: Exit.Exit<unknown, unknown>) => {
  const failure = Exit.isFailure(exit) ? Option.getOrUndefined(Exit.findErrorOption(exit)) : undefined
  return (failure ?? { _tag: "Defect", said: String(exit) }) as Got["error"] & object
}

/** What the provider saw: each request as logged (its `at` on the mock's clock, the TestClock). */
export interface Seen {
  readonly log: ReadonlyArray<MockProvider.Request>
  /** TestClock milliseconds from the start to the end. */
  readonly elapsed: number
}

/** Faults whose reply waits on purpose (on the mock's clock, or forever): the TestClock may move past them. */
const waiting = new Set<string>(["hang", "stall", "slow", "slow-token"])

/**
 * Runs `effect` forked and moves the TestClock on by `step` whenever no reply is on its way (every
 * request the mock saw has ended, or waits on purpose) and the mock's log has not grown for
 * `quiet` short real pauses, until it ends (or `limit` of test time has passed).
 */
export const drive = <A>(
  mock: MockProvider.Service,
  effect: Effect.Effect<A, never, Scope.Scope>,
  { limit = 30 * 60_000, quiet = 3, step = 100 } = {}
): Effect.Effect<{ readonly value: A; readonly seen: Seen }, string> =>
  Effect.gen(function*() {
    const start = yield* Clock.currentTimeMillis
    const fiber = yield* Effect.forkChild(Effect.scoped(effect))
    let still = 0
    let known = 0
    for (;;) {
      yield* TestClock.withLive(Effect.sleep("2 millis"))
      const log = (yield* mock.requests).log
      const now = yield* Clock.currentTimeMillis
      const exit = fiber.pollUnsafe()
      if (exit !== undefined) {
        if (Exit.isFailure(exit)) return yield* Effect.fail(`the run died: ${String(exit)}`)
        return { value: exit.value, seen: { log, elapsed: now - start } }
      }
      if (now - start > limit) return yield* Effect.fail(`still running after ${limit} ms of test time`)
      const busy = log.some((request) =>
        (request as { readonly ended?: string }).ended === "pending" && !waiting.has(request.fault)
      )
      if (log.length !== known || busy) [known, still] = [log.length, 0]
      else if (++still >= quiet) yield* TestClock.adjust(step)
    }
  })

/** A preset's limit at an HTTP place, in milliseconds: its `limits.http`, else its `firstByte` / `idle`. */
export const limitOf = (preset: Preset.Preset, limit: Limit): number => {
  const options = preset.options as Preset.Preset["options"] & {
    readonly limits?: {
      readonly http?: {
        readonly firstByte?: Option.Option<Duration.Duration>
        readonly stall?: Option.Option<Duration.Duration>
      }
    }
  }
  const own = options.limits?.http?.[limit]
  const value = own ?? (limit === "firstByte" ? options.firstByte : options.idle)
  return Option.match(value, { onNone: () => Infinity, onSome: Duration.toMillis })
}

/** The agent made at the row's first place with the preset's options. */
export const agentAt = (row: Row, preset: Preset.Preset) =>
  Agent.make(`local/${chainOf(row)[0]}`, Settings.plain, preset.options).pipe(Effect.orDie)

/** The models asked, as runs: `a a b` → `[["a", 2], ["b", 1]]`. */
export const runsOf = (models: ReadonlyArray<string>): ReadonlyArray<readonly [string, number]> => {
  const runs: Array<[string, number]> = []
  for (const model of models) {
    const last = runs.at(-1)
    if (last !== undefined && last[0] === model) last[1] += 1
    else runs.push([model, 1])
  }
  return runs
}

/** Whether a request carried a prefill, as the mock logs it (`prefill`: the text or a flag). */
export const prefilled = (request: MockProvider.Request): boolean => {
  const prefill = (request as { readonly prefill?: unknown }).prefill
  return prefill !== undefined && prefill !== false && prefill !== ""
}
