import type * as Account from "@fallback/core/Account"
import * as Backend from "@fallback/core/Backend"
import * as Failure from "@fallback/core/Failure"
import * as Notice from "@fallback/core/Notice"
import type * as Place from "@fallback/core/Place"
import * as Settings from "@fallback/core/Settings"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type * as Cli from "../../Cli.js"
import { carry } from "./carry.js"
import * as Catalogue from "./catalogue.js"
import * as Child from "./child.js"
import { environment } from "./environment.js"
import * as Json from "./json.js"
import * as Log from "./log.js"

/**
 * What makes one CLI a backend: how it is told a turn, the environment it needs, how its live
 * stream turns into events, when its progress already says the turn failed, and how a finished
 * run is judged.
 *
 * @internal
 */
export interface Description {
  readonly module: string
  readonly cli: string
  readonly install: string
  readonly capabilities: Backend.Capabilities
  readonly argv: (
    turn: Cli.Turn,
    options: Cli.Options,
    env: Readonly<Record<string, string>>
  ) => ReadonlyArray<string>
  readonly quiet: (options: Cli.Options) => Readonly<Record<string, string>>
  readonly home: (configDir: string) => Readonly<Record<string, string>>
  readonly passes: ReadonlyArray<string>
  readonly live: (fields: Json.Fields) => ReadonlyArray<Backend.Event>
  /** A reader of one run's stream that keeps what it has seen, used instead of `live` where given. */
  readonly reader?: () => (fields: Json.Fields) => ReadonlyArray<Backend.Event>
  readonly settled: (line: Child.Line) => boolean
  /** Whether a stdout event is the CLI's last word on a turn (its result line), success or failure. */
  readonly final: (fields: Json.Fields) => boolean
  readonly readOutcome: (finished: Cli.Finished, place: Place.Place) => Cli.Outcome
  readonly prepare?: (
    settings: Settings.Settings,
    env: Readonly<Record<string, string>>
  ) => Effect.Effect<Readonly<Record<string, string>>, never, Scope.Scope>
  readonly sessions?: (env: Readonly<Record<string, string>>) => string | undefined
  readonly mark?: (sessionId: string) => string
  readonly log?: (env: Readonly<Record<string, string>>) => string | undefined
  readonly keepsFailed?: boolean
  /** What the CLI says when the session it was told to resume is not there. */
  readonly noSession?: RegExp
}

/**
 * What each permission rung a CLI can express exactly is, there: a rung left out is one it cannot
 * honour (its capabilities say so), never one mapped to a neighbour.
 *
 * @internal
 */
export type Rungs<A> = Partial<Record<Settings.Permission, A>>

/** @internal */
export const rungsOf = (rungs: Rungs<unknown>): ReadonlyArray<Settings.Permission> =>
  Settings.permissions.filter((rung) => rungs[rung] !== undefined)

/**
 * What a rung is at a CLI. One it cannot express never gets here (the walk and `Agent.make`
 * refuse it first); were it to, it is a defect rather than a run at another rung.
 *
 * @internal
 */
export const atRung = <A>(cli: string, rungs: Rungs<A>, rung: Settings.Permission): A => {
  const at = rungs[rung]
  if (at === undefined) throw new Error(`${cli} cannot run at the permission rung ${rung}`)
  return at
}

/**
 * How long a CLI that has printed its result line has to exit by itself. After it, its whole
 * process group is ended (an MCP server it started, a grandchild holding its stdout, a CLI that
 * hangs on exit) and the turn is judged by that result: a success lands with the answer it printed,
 * a failure is the kind its result names.
 *
 * @internal
 */
export const landingGrace = Duration.seconds(2)

/** A resume that found no session: the turn is taken again in a fresh one. */
class SessionLost {
  readonly _tag = "SessionLost"
  constructor(readonly id: string) {}
}

/** A prompt that carries the conversation so far as text, for a session that starts without it. */
const carried = (history: ReadonlyArray<Backend.Exchange>, text: string): string =>
  history.length === 0
    ? text
    : [
      "The conversation so far, carried over from a session that could not be resumed here:",
      ...history.flatMap((exchange) => [`User: ${exchange.prompt}`, `Assistant: ${exchange.answer}`]),
      "",
      text
    ].join("\n")

/**
 * A CLI that would not start is not installed, whatever the system said.
 *
 * @internal
 */
export const notInstalled = (
  description: Pick<Description, "cli" | "install">,
  place: Place.Place,
  said: string
): Failure.Failure => new Failure.NotInstalled({ place, install: description.install, said: Failure.said(said) })

/**
 * A backend for a CLI: each turn is one run of it, in its own process group, resumed by the
 * session id its stream named. A CLI that keeps no session whose first turn failed (gemini) has
 * its session named only once a turn in it lands, so a retry starts afresh instead of resuming
 * a session that is not there.
 *
 * @internal
 */
export const make = (description: Description, options: Cli.Options): Backend.Backend => {
  const grace = Duration.fromInputUnsafe(options.grace ?? Duration.seconds(2))
  const homes = new Map<string, string>()
  // The exchanges of each session this backend ran, so a resume that finds none can carry them as text.
  const transcripts = new Map<string, ReadonlyArray<Backend.Exchange>>()
  const open = Effect.fn(`${description.module}.open`)(function*(
    place: Place.Place,
    account: Option.Option<Account.Account>,
    settings: Settings.Settings,
    opening: Backend.Opening
  ) {
    const found = environment(
      process.env,
      account,
      { ...description, quiet: description.quiet(options) },
      options.env ?? {}
    )
    if (Result.isFailure(found)) {
      const unset = found.failure
      return yield* new Failure.AuthRefused({
        place,
        said: Failure.said(`account ${unset.account} takes ${unset.variable} from ${unset.from}, which is not set`)
      })
    }
    const env = found.success
    const prepared = description.prepare === undefined ? env : { ...env, ...yield* description.prepare(settings, env) }
    const sessions = description.sessions?.(prepared)
    let current = opening.resume === undefined || opening.resume === "" ? undefined : opening.resume
    if (current !== undefined && sessions !== undefined) {
      const from = homes.get(current)
      if (from !== undefined && from !== sessions) carry(description.mark?.(current) ?? current, from, sessions)
    }
    const known = (id: string) => {
      current = id
      if (sessions !== undefined) homes.set(id, sessions)
    }
    const turn = (prompt: Backend.Prompt): Stream.Stream<Backend.Event, Failure.Failure> =>
      Stream.catch(once(prompt, prompt.text), (error) => {
        if (error._tag !== "SessionLost") return Stream.fail(error)
        current = undefined
        const history = transcripts.get(error.id) ?? prompt.history
        return Stream.concat(
          Stream.fromEffectDrain(Effect.gen(function*() {
            const notices = yield* Notice.Notices
            yield* notices.publish(Notice.Notice.Fresh({ place, session: error.id }))
          })),
          Stream.catch(
            once(prompt, carried(history, prompt.text), history),
            (again) =>
              Stream.fail(
                again._tag === "SessionLost"
                  ? new Failure.Unknown({ place, said: Failure.said(`no session ${again.id}`) })
                  : again
              )
          )
        )
      })
    const once = (
      prompt: Backend.Prompt,
      text: string,
      before?: ReadonlyArray<Backend.Exchange>
    ): Stream.Stream<Backend.Event, Failure.Failure | SessionLost> =>
      Stream.unwrap(Effect.gen(function*() {
        const resumed = current
        const args = description.argv(
          { prompt: text, model: place.model, resume: current, settings },
          options,
          prepared
        )
        const logFolder = description.log?.(prepared)
        const logMark = logFolder === undefined ? undefined : Log.mark(logFolder)
        const child = yield* Child.start(
          { bin: options.bin ?? description.cli, args, env: prepared, cwd: options.cwd ?? process.cwd() },
          grace
        ).pipe(Effect.mapError((unstarted) => notInstalled(description, place, unstarted.message)))
        const scope = yield* Effect.scope
        const stdout = Child.keptLines()
        const stderr = Child.keptLines()
        let named = false
        const read = description.reader?.() ?? description.live
        // The exit status the CLI owed, set once fallback ended it after the grace its result line
        // gave it: 0 when what it printed reads as an answer, 1 when it reads as a failure.
        let owedExit: number | undefined
        let landing = false
        const land = Effect.gen(function*() {
          const exitedInTime = yield* Effect.timeoutOption(child.ended, landingGrace)
          if (Option.isSome(exitedInTime) || !(yield* child.running)) return
          const says = description.readOutcome(
            { exitCode: 0, signal: null, stdout: stdout.text(), stderr: stderr.text() },
            place
          )
          owedExit = Result.isFailure(says) ? 1 : 0
          yield* child.stop
        })
        const events = (fields: Json.Fields) =>
          read(fields).filter((event) => {
            if (event._tag !== "SessionStarted") return true
            if (description.keepsFailed === false && event.sessionId !== current) return false
            named = true
            known(event.sessionId)
            return true
          })
        const live = child.lines.pipe(
          Stream.mapEffect((line): Effect.Effect<ReadonlyArray<Backend.Event>> => {
            if (line.stream === "stderr") stderr.push(line.text)
            else stdout.push(line.text)
            if (options.retries !== true && description.settled(line)) {
              return Effect.as(Effect.forkIn(child.stop, scope), [])
            }
            if (line.stream === "stderr") return Effect.succeed([])
            const fields = Json.object(line.text)
            if (fields === undefined) return Effect.succeed([])
            if (landing || !description.final(fields)) return Effect.succeed(events(fields))
            // Its result line: what it says stands even if the CLI then lingers.
            landing = true
            return Effect.as(Effect.forkIn(land, scope), events(fields))
          }),
          Stream.flattenIterable
        )
        const judged = Stream.fromIterableEffect(Effect.flatMap(child.ended, (ended) => {
          const finished = {
            // a CLI ended after its result is judged as the exit it owed
            ...(owedExit === undefined ? ended : { exitCode: owedExit, signal: null }),
            stdout: stdout.text(),
            stderr: stderr.text(),
            ...(logFolder === undefined || logMark === undefined ? {} : { log: Log.since(logFolder, logMark) })
          }
          options.record?.(finished)
          if (resumed !== undefined && description.noSession?.test(`${finished.stdout}\n${finished.stderr}`) === true) {
            return Effect.fail(new SessionLost(resumed))
          }
          const outcome = description.readOutcome(finished, place)
          return Result.match(outcome, {
            onFailure: (failure) => Effect.fail<Failure.Failure | SessionLost>(failure),
            onSuccess: (turned) => {
              if (turned.sessionId !== undefined) known(turned.sessionId)
              const id = turned.sessionId ?? current
              if (id !== undefined) {
                const answer = Backend.textOf(turned.events)
                const earlier = before ?? (resumed === undefined ? [] : transcripts.get(resumed) ?? [])
                transcripts.set(id, [...earlier, { prompt: prompt.text, answer }])
              }
              const result = turned.events.filter((event) => event._tag === "Result")
              return Effect.succeed(
                named || turned.sessionId === undefined
                  ? result
                  : [Backend.Event.SessionStarted({ sessionId: turned.sessionId }), ...result]
              )
            }
          })
        }))
        return Stream.concat(live, judged)
      }))
    return {
      get id() {
        return current ?? ""
      },
      turn,
      // The CLI holds the conversation and resumes it by the session's id: it never reads history.
      keepsConversation: true
    } satisfies Backend.Session
  })
  const models = Catalogue.models(description.cli, options.models).map((name) => ({ name }))
  return { cli: description.cli, capabilities: { ...description.capabilities, models }, open }
}
