/**
 * A scripted backend: for each place, a script of outcomes its turns play in order (the last one
 * repeats), and counts of what was opened, closed, asked and probed, so every answer of the engine
 * can be tested without real processes.
 *
 * @since 0.1.0
 */
import * as Backend from "@fallback/core/Backend"
import * as Failure from "@fallback/core/Failure"
import * as Place from "@fallback/core/Place"
import type * as Settings from "@fallback/core/Settings"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"

/**
 * What one turn at a place does.
 *
 * - `Answer`: the session event, the text, then the result.
 * - `Fail`: fails before sending anything.
 * - `Hang`: the session event, then nothing ever again.
 * - `Die`: the session event and `after` pieces of text, then the failure.
 * - `Stall`: the session event and `after` pieces of text, then nothing ever again.
 * - `Delay`: waits, then plays `then`.
 * - `Timed`: the session event, then each event after its wait (counted from the one before),
 *   then the failure if one is given.
 * - `Decide`: plays what `decide` picks for the prompt sent.
 *
 * @since 0.1.0
 * @category models
 */
export type Outcome = Data.TaggedEnum<{
  Answer: { readonly text: string }
  Fail: { readonly failure: (place: Place.Place) => Failure.Failure }
  Hang: {}
  Die: { readonly after: number; readonly failure: (place: Place.Place) => Failure.Failure }
  Stall: { readonly after: number }
  Delay: { readonly duration: Duration.Duration; readonly then: Outcome }
  Timed: {
    readonly events: ReadonlyArray<readonly [Duration.Duration, Backend.Event]>
    readonly failure: ((place: Place.Place) => Failure.Failure) | undefined
  }
  Decide: { readonly decide: (prompt: Backend.Prompt) => Outcome }
}>

/**
 * Makes and matches {@link Outcome}s.
 *
 * @since 0.1.0
 * @category constructors
 */
export const Outcome = Data.taggedEnum<Outcome>()

/**
 * Answers with `text`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const answer = (text: string): Outcome => Outcome.Answer({ text })

/**
 * Hangs after the session event.
 *
 * @since 0.1.0
 * @category constructors
 */
export const hang: Outcome = Outcome.Hang()

/**
 * Waits `duration`, then plays `then`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const delay = (duration: Duration.Input, then: Outcome): Outcome =>
  Outcome.Delay({ duration: Duration.fromInputUnsafe(duration), then })

/**
 * Sends the session event, then each event after its wait, counted from the event before: a
 * stream as a backend sends it over time (thinking for a while, then the answer); then fails
 * with `kind` if given.
 *
 * @since 0.1.0
 * @category constructors
 */
export const timed = (
  events: ReadonlyArray<readonly [Duration.Input, Backend.Event]>,
  kind?: Failure.Kind
): Outcome =>
  Outcome.Timed({
    events: events.map(([wait, event]) => [Duration.fromInputUnsafe(wait), event] as const),
    failure: kind === undefined ? undefined : failures[kind]
  })

/**
 * Plays what `decide` picks for the prompt.
 *
 * @since 0.1.0
 * @category constructors
 */
export const decide = (f: (prompt: Backend.Prompt) => Outcome): Outcome => Outcome.Decide({ decide: f })

const said = (kind: Failure.Kind) => Failure.said(`scripted ${kind}`)

const failures: { readonly [K in Failure.Kind]: (place: Place.Place) => Failure.Failure } = {
  RateLimited: (place) => new Failure.RateLimited({ place, said: said("RateLimited") }),
  QuotaExhausted: (place) => new Failure.QuotaExhausted({ place, said: said("QuotaExhausted") }),
  AuthRefused: (place) => new Failure.AuthRefused({ place, said: said("AuthRefused") }),
  ModelNotFound: (place) => new Failure.ModelNotFound({ place, said: said("ModelNotFound") }),
  StoreBusy: (place) => new Failure.StoreBusy({ place, said: said("StoreBusy") }),
  ConnectionLost: (place) => new Failure.ConnectionLost({ place, said: said("ConnectionLost") }),
  Killed: (place) => new Failure.Killed({ place, said: said("Killed"), signal: "SIGKILL" }),
  NotInstalled: (place) =>
    new Failure.NotInstalled({ place, said: said("NotInstalled"), install: `npm install -g ${place.cli}` }),
  ContextTooLong: (place) => new Failure.ContextTooLong({ place, said: said("ContextTooLong") }),
  ArgumentsRefused: (place) =>
    new Failure.ArgumentsRefused({ place, said: said("ArgumentsRefused"), argument: "--permission-mode yolo" }),
  Refused: (place) => new Failure.Refused({ place, said: said("Refused") }),
  Timeout: (place) =>
    new Failure.Timeout({ place, said: said("Timeout"), phase: "whole-send", after: Duration.seconds(600) }),
  Unresponsive: (place) => new Failure.Unresponsive({ place, said: said("Unresponsive") }),
  Unknown: (place) => new Failure.Unknown({ place, said: said("Unknown") })
}

/**
 * Fails with a failure of `kind`, or with the failure `make` builds for the place.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fail = (kind: Failure.Kind | ((place: Place.Place) => Failure.Failure)): Outcome =>
  Outcome.Fail({ failure: typeof kind === "string" ? failures[kind] : kind })

/**
 * Sends `after` pieces of text, then fails with `kind`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const die = (after: number, kind: Failure.Kind): Outcome => Outcome.Die({ after, failure: failures[kind] })

/**
 * Sends `after` pieces of text, then hangs.
 *
 * @since 0.1.0
 * @category constructors
 */
export const stall = (after: number): Outcome => Outcome.Stall({ after })

/**
 * A script: for each place (written `CLI[@ACCOUNT]/MODEL`), the outcomes of its turns in order;
 * the last repeats, and a place with no script answers `ok from <place>`. `capabilities` are per
 * CLI (everything on when not said); `checks` are the outcomes of a place's health checks in
 * order (true when not said; the last repeats; `"hang"` never answers). With `whole`, sessions
 * also answer a turn whole (`reply`), playing the same outcome and keeping their limits: a failure
 * after parts delivers nothing then, and a reply not over by `limits.by` is a first-byte Timeout.
 *
 * @since 0.1.0
 * @category models
 */
export interface Script {
  readonly places: Readonly<Record<string, ReadonlyArray<Outcome>>>
  readonly capabilities?: Readonly<Record<string, Partial<Backend.Capabilities>>>
  readonly checks?: Readonly<Record<string, ReadonlyArray<boolean | "hang">>>
  readonly clis?: ReadonlyArray<string>
  readonly whole?: boolean
}

/**
 * What a scripted place saw.
 *
 * @since 0.1.0
 * @category models
 */
export interface Seen {
  /** Sessions opened. */
  readonly opens: number
  /** Sessions closed. */
  readonly closes: number
  /** Turns asked (requests). */
  readonly turns: number
  /** Health checks asked. */
  readonly checks: number
  /** The prompts sent, in order. */
  readonly prompts: ReadonlyArray<Backend.Prompt>
  /** The session each open resumed, if any, in order. */
  readonly resumed: ReadonlyArray<string | undefined>
  /** The settings each open was given, in order. */
  readonly settings: ReadonlyArray<Settings.Settings>
  /** When each turn was asked (Clock millis). */
  readonly at: ReadonlyArray<number>
}

/**
 * What a scripted backend tells a test.
 *
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** What a place saw so far. */
  readonly seen: (place: string) => Seen
  /** Every place that saw a request, in the order of their first. */
  readonly asked: () => ReadonlyArray<string>
  /** Requests over every place. */
  readonly requests: () => number
}

/**
 * The counts of a scripted backend.
 *
 * @since 0.1.0
 * @category services
 */
export class Scripted extends Context.Service<Scripted, Service>()("@fallback/testkit/Scripted") {
  /**
   * The scripted backends (one per CLI named) and their counts, fresh for each build.
   *
   * @since 0.1.0
   */
  static readonly layer = (script: Script): Layer.Layer<Scripted | Backend.Backends> =>
    Layer.unwrap(Effect.sync(() => {
      const book = new Map<string, Counts>()
      const asked: Array<string> = []
      const of = (place: string): Counts => {
        const found = book.get(place)
        if (found !== undefined) return found
        const made: Counts = {
          opens: 0,
          closes: 0,
          turns: 0,
          checks: 0,
          prompts: [],
          resumed: [],
          settings: [],
          at: []
        }
        book.set(place, made)
        return made
      }
      const clis = new Set([
        ...Object.keys(script.places).map((place) => place.slice(0, place.search(/[@/]/))),
        ...Object.keys(script.capabilities ?? {}),
        ...(script.clis ?? [])
      ])
      const backends = [...clis].map((cli) => backend(cli, script, of, asked))
      return Layer.merge(
        Backend.Backends.layer(backends),
        Layer.succeed(Scripted, {
          seen: (place) => ({ ...of(place) }),
          asked: () => [...asked],
          requests: () => [...book.values()].reduce((sum, counts) => sum + counts.turns, 0)
        })
      )
    }))
}

interface Counts {
  opens: number
  closes: number
  turns: number
  checks: number
  prompts: Array<Backend.Prompt>
  resumed: Array<string | undefined>
  settings: Array<Settings.Settings>
  at: Array<number>
}

const backend = (
  cli: string,
  script: Script,
  of: (place: string) => Counts,
  asked: Array<string>
): Backend.Backend => {
  const capabilities: Backend.Capabilities = {
    webSearchOff: true,
    callbacks: true,
    effort: true,
    permission: true,
    skills: true,
    resume: true,
    models: [],
    ...script.capabilities?.[cli]
  }
  return {
    cli,
    capabilities,
    open: (place, _account, settings, opening) =>
      Effect.acquireRelease(
        Effect.sync(() => {
          const name = Place.format(place)
          const counts = of(name)
          counts.opens += 1
          counts.resumed.push(opening.resume)
          counts.settings.push(settings)
          const id = opening.resume ?? `${name}#${counts.opens}`
          const turn = (prompt: Backend.Prompt) =>
            Stream.unwrap(Effect.gen(function*() {
              const now = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
              if (counts.turns === 0 && !asked.includes(name)) asked.push(name)
              const outcomes = script.places[name] ?? [answer(`ok from ${name}`)]
              const outcome = outcomes[Math.min(counts.turns, outcomes.length - 1)]!
              counts.turns += 1
              counts.prompts.push(prompt)
              counts.at.push(now)
              return play(outcome, place, id, prompt)
            }))
          return {
            id,
            turn,
            reply: script.whole === true ? (prompt, limits) => whole(place, turn(prompt), limits) : undefined,
            keepsLimits: script.whole === true
          } satisfies Backend.Session
        }),
        () => Effect.sync(() => void (of(Place.format(place)).closes += 1))
      ),
    check: (place) =>
      Effect.suspend(() => {
        const name = Place.format(place)
        const counts = of(name)
        const outcomes = script.checks?.[name] ?? [true]
        const outcome = outcomes[Math.min(counts.checks, outcomes.length - 1)]
        counts.checks += 1
        return outcome === "hang"
          ? Effect.never
          : outcome === true
          ? Effect.void
          : Effect.fail(new Failure.Unresponsive({ place, said: Failure.said("scripted failed check") }))
      })
  }
}

/** A turn played whole: its events once it ends, or a Timeout when it has not ended by `limits.by`. */
const whole = (place: Place.Place, turn: Stream.Stream<Backend.Event, Failure.Failure>, limits: Backend.Limits) =>
  Effect.clockWith((clock) => {
    const within = Duration.millis(Math.max(0, limits.by - clock.currentTimeMillisUnsafe()))
    return Effect.timeoutOrElse(Stream.runCollect(turn), {
      duration: within,
      orElse: () =>
        Effect.fail(
          new Failure.Timeout({ place, said: Failure.said("no first byte"), phase: "first-byte", after: within })
        )
    })
  })

const started = (id: string) => Stream.make(Backend.Event.SessionStarted({ sessionId: id }))

const parts = (count: number) =>
  Stream.fromIterable(Array.from({ length: count }, (_, i) => Backend.Event.Text({ text: `part ${i + 1} ` })))

const play = (
  outcome: Outcome,
  place: Place.Place,
  id: string,
  prompt: Backend.Prompt
): Stream.Stream<Backend.Event, Failure.Failure> =>
  Outcome.$match(outcome, {
    Answer: ({ text }) =>
      Stream.concat(
        started(id),
        Stream.make(
          Backend.Event.Text({ text }),
          Backend.Event.Result({ text, usage: { input: Backend.tokens(prompt), output: Math.ceil(text.length / 4) } })
        )
      ),
    Fail: ({ failure }) => Stream.fail(failure(place)),
    Hang: () => Stream.concat(started(id), Stream.never),
    Die: ({ after, failure }) => Stream.concat(Stream.concat(started(id), parts(after)), Stream.fail(failure(place))),
    Stall: ({ after }) => Stream.concat(Stream.concat(started(id), parts(after)), Stream.never),
    Delay: ({ duration, then }) =>
      Stream.concat(Stream.drain(Stream.fromEffect(Effect.sleep(duration))), play(then, place, id, prompt)),
    Decide: ({ decide }) => play(decide(prompt), place, id, prompt),
    Timed: ({ events, failure }) =>
      Stream.concat(
        Stream.concat(
          started(id),
          Stream.mapEffect(Stream.fromIterable(events), ([wait, event]) => Effect.as(Effect.sleep(wait), event))
        ),
        failure === undefined ? Stream.empty : Stream.fail(failure(place))
      )
  })
