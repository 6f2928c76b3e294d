import type * as Agent from "@fallback/core/Agent"
import * as Answer from "@fallback/core/Answer"
import type * as Backend from "@fallback/core/Backend"
import type * as ConfigFile from "@fallback/core/ConfigFile"
import * as Preset from "@fallback/core/Preset"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

import { formatTime, parseTime } from "./seconds.js"

/** @internal */
export type PresetName = keyof typeof Preset.byName

/**
 * A number given to `run` that is not one it can use.
 *
 * @internal
 */
export class InvalidRun extends Schema.TaggedError<InvalidRun>("@fallback/cli/InvalidRun")("InvalidRun", {
  reason: Schema.String
}) {
  override get message(): string {
    return this.reason
  }
}

type RunFile = NonNullable<ConfigFile.Document["run"]>

/** A preset's answers with the config's changes to some kinds laid over them. */
const answersWith = (answers: Answer.Table, changes: NonNullable<RunFile["answers"]>): Answer.Table =>
  Answer.override(
    answers,
    Object.fromEntries(
      Object.entries(changes).map(([kind, change]) => {
        const was = answers[kind as keyof Answer.Table]
        // the preset's answer, with only what the config changes written over it
        return [
          kind,
          new Answer.Answer({
            ...was,
            ...(change.waits === undefined ? {} : { here: change.waits.map((s) => Duration.seconds(s)) }),
            ...(change.atLeast === undefined ? {} : { atLeast: Duration.seconds(change.atLeast) }),
            ...(change.cooldown === undefined ? {} : { cooldown: Duration.seconds(change.cooldown) }),
            step: change.step ?? was.step,
            reopen: change.reopen ?? was.reopen,
            accounts: change.accounts ?? was.accounts,
            places: change.places ?? was.places,
            once: change.once ?? was.once
          })
        ]
      })
    )
  )

const timeOf = (given: Option.Option<string>) =>
  Option.match(given, {
    onNone: () => Effect.succeedNone,
    onSome: (input) => Effect.asSome(Effect.fromResult(parseTime(input)))
  })

const seconds = (value: number | undefined) => Option.map(Option.fromUndefinedOr(value), (s) => Duration.seconds(s))

/** 0 is no limit. */
const limit = (d: Duration.Duration): Option.Option<Duration.Duration> =>
  Duration.isZero(d) ? Option.none() : Option.some(d)

/**
 * What `run`'s options are read from: the flags the handler was given.
 *
 * @internal
 */
export interface RunFlags {
  readonly preset: Option.Option<PresetName>
  readonly firstByte: Option.Option<string>
  readonly stall: Option.Option<string>
  readonly idle: Option.Option<string>
  readonly deadline: Option.Option<string>
  readonly attempts: Option.Option<number>
}

/**
 * The limits of one place kind: the flag, else `run.limits.KIND`, else (first byte only) the
 * older `run.firstByte`, else the preset's.
 */
const kindLimits = (
  kind: Backend.Kind,
  flags: { readonly firstByte: Option.Option<Duration.Duration>; readonly stall: Option.Option<Duration.Duration> },
  file: RunFile,
  preset: Agent.KindLimits | undefined
): Agent.KindLimits => {
  const given = file.limits?.[kind]
  const firstByte = Option.orElse(
    flags.firstByte,
    () => Option.orElse(seconds(given?.firstByte), () => seconds(file.firstByte))
  )
  const stall = Option.orElse(flags.stall, () => seconds(given?.stall))
  return {
    ...preset,
    ...Option.match(firstByte, { onNone: () => ({}), onSome: (d) => ({ firstByte: limit(d) }) }),
    ...Option.match(stall, { onNone: () => ({}), onSome: (d) => ({ stall: limit(d) }) })
  }
}

/** Whether the flags or the config give any limit per place kind. */
const anyKindLimit = (
  flags: { readonly firstByte: Option.Option<Duration.Duration>; readonly stall: Option.Option<Duration.Duration> },
  file: RunFile
) =>
  Option.isSome(flags.firstByte) || Option.isSome(flags.stall) || file.firstByte !== undefined ||
  file.limits !== undefined

/**
 * A limit given per place kind (by flag or config) longer than the turn's deadline is never
 * reached: the deadline ends the turn first, so it is refused, saying which to shorten.
 */
const longerThanTheTurn = (
  flags: { readonly firstByte: Option.Option<Duration.Duration>; readonly stall: Option.Option<Duration.Duration> },
  file: RunFile,
  deadline: Duration.Duration
) =>
  Effect.gen(function*() {
    for (const which of ["firstByte", "stall"] as const) {
      const flag = which === "firstByte" ? "first-byte" : "stall"
      const given: Array<readonly [string, Option.Option<Duration.Duration>]> = [
        [`--${flag}`, flags[which]],
        [`run.limits.http.${which}`, seconds(file.limits?.http?.[which])],
        [`run.limits.cli.${which}`, seconds(file.limits?.cli?.[which])]
      ]
      for (const [where, value] of given) {
        if (Option.isSome(value) && Duration.isGreaterThan(value.value, deadline)) {
          return yield* new InvalidRun({
            reason:
              `${where} ${formatTime(value.value)} is longer than the turn's deadline (${formatTime(deadline)}), ` +
              `which would end the turn first; give a shorter ${where} or a longer --deadline`
          })
        }
      }
    }
  })

/**
 * The preset a run takes and the options its agent is made with: the flags, else the config's
 * run settings, else the preset's.
 *
 * @internal
 */
export const runOptions = (flags: RunFlags, document: ConfigFile.Document) =>
  Effect.gen(function*() {
    const file: RunFile = document.run ?? {}
    const named = Preset.byName[Option.getOrElse(flags.preset, () => file.preset ?? "primary")]
    const chosen: Preset.Preset = {
      ...named,
      options: {
        ...named.options,
        answers: file.answers === undefined ? named.options.answers : answersWith(named.options.answers, file.answers)
      },
      breaker: {
        failures: file.breaker?.failures ?? named.breaker.failures,
        park: Option.getOrElse(seconds(file.breaker?.park), () => named.breaker.park)
      }
    }
    const firstFlag = yield* timeOf(flags.firstByte)
    const stallFlag = yield* timeOf(flags.stall)
    const first = Option.orElse(firstFlag, () => seconds(file.firstByte))
    const idleFlag = yield* timeOf(flags.idle)
    const quietFor = Option.orElse(idleFlag, () => seconds(file.idle))
    const within = Option.orElse(yield* timeOf(flags.deadline), () => seconds(file.deadline))
    const attempts = Option.orElse(flags.attempts, () => Option.fromUndefinedOr(file.attempts))
    if (Option.isSome(flags.attempts) && flags.attempts.value < 1) {
      return yield* new InvalidRun({ reason: `--attempts ${flags.attempts.value}: a turn takes at least 1 go` })
    }
    if (Option.isSome(within) && Duration.isZero(within.value)) {
      return yield* new InvalidRun({ reason: "--deadline 0: a turn needs some time; write 90s, 10m…" })
    }
    // the file's send ceiling (limits.send), 0 for none
    const send = document.limits?.send
    const kinds = { firstByte: firstFlag, stall: stallFlag }
    const options: Agent.Options = {
      ...chosen.options,
      ...(send === undefined ? {} : { send: limit(send) }),
      firstByte: Option.match(first, { onNone: () => chosen.options.firstByte, onSome: limit }),
      // a preset without limits per kind (escalating) keeps its firstByte and idle everywhere
      // until a flag or the config gives one
      ...(chosen.options.limits === undefined && !anyKindLimit(kinds, file) ? {} : {
        limits: {
          http: kindLimits("http", kinds, file, chosen.options.limits?.http),
          cli: kindLimits("cli", kinds, file, chosen.options.limits?.cli)
        }
      }),
      watchdog: Option.match(quietFor, {
        onNone: () => chosen.options.watchdog,
        onSome: (every) => Option.map(chosen.options.watchdog, (w) => ({ ...w, every }))
      }),
      budget: {
        deadline: Option.getOrElse(within, () => chosen.options.budget.deadline),
        attempts: Option.getOrElse(attempts, () => chosen.options.budget.attempts)
      }
    }
    yield* longerThanTheTurn(kinds, file, options.budget.deadline)
    return { chosen, options, quietFor, idleFlag }
  })
