import * as fs from "node:fs"
import * as nodePath from "node:path"

import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as Agent from "@fallback/core/Agent"
import * as Answer from "@fallback/core/Answer"
import * as Backend from "@fallback/core/Backend"
import * as ConfigFile from "@fallback/core/ConfigFile"
import * as Notice from "@fallback/core/Notice"
import * as Place from "@fallback/core/Place"
import * as Preset from "@fallback/core/Preset"
import * as Secret from "@fallback/core/Secret"
import * as Settings from "@fallback/core/Settings"
import * as Command from "effect/cli/Command"
import * as Console from "effect/Console"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as Terminal from "effect/Terminal"

import { backendsOf } from "./backends.js"
import { besideConfig, editing } from "./config.js"
import * as Conversations from "./conversations.js"
import * as Countdown from "./countdown.js"
import { exitStatusTable, Unanswered } from "./outcome.js"
import { runArgs } from "./runArgs.js"
import * as RunJson from "./runJson.js"
import { parseTime } from "./seconds.js"
import { health } from "./status.js"
import { exported } from "./telemetry.js"

const presets = { primary: Preset.primary, escalating: Preset.escalating, breaker: Preset.breaker } as const

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

/**
 * What is wrong with a conversation ID given to `--session`, which a CLI reads as a file's name
 * (claude's and gemini's UUIDs, codex's thread IDs, opencode's `ses_…`); none when it can be one.
 *
 * @internal
 */
export const sessionProblem = (id: string): string | undefined =>
  /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(id) && !id.includes("..") ?
    undefined :
    `--session ${
      JSON.stringify(`${id.slice(0, 60).replace(/[^\x20-\x7e]/g, "?")}${id.length > 60 ? "…" : ""}`)
    }: a conversation ID starts with a letter or a digit and holds up to 128 letters, digits, ".", "_" and "-" ` +
    `(no "/", no "..", no spaces or control characters), as the CLI printed it`

/**
 * A prompt no agent CLI can be given.
 *
 * @internal
 */
export class InvalidPrompt extends Schema.TaggedError<InvalidPrompt>("@fallback/cli/InvalidPrompt")("InvalidPrompt", {
  reason: Schema.Literals(["nul", "empty"])
}) {
  override get message(): string {
    return this.reason === "nul"
      ? "the prompt holds a NUL byte (\\u0000), which no agent CLI can be given; remove it"
      : "the prompt is empty; give it as an argument (fallback run PLACE \"Fix the failing test\") or on stdin"
  }
}

/** A preset's answers with the config's changes to some kinds laid over them. */
const answersWith = (
  answers: Answer.Table,
  changes: NonNullable<NonNullable<ConfigFile.Document["run"]>["answers"]>
): Answer.Table =>
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

const stdin = Effect.callback<string>((resume) => {
  let text = ""
  process.stdin.setEncoding("utf8")
  process.stdin.on("data", (chunk: string) => (text += chunk))
  process.stdin.on("end", () => resume(Effect.succeed(text)))
})

const reading = Effect.suspend(() =>
  process.stdin.isTTY === true
    ? Console.error("fallback: type the prompt, then ctrl+d on a line of its own (or pass it as an argument)")
    : Effect.void
).pipe(Effect.andThen(stdin))

/** @internal */
export const run = Command.make("run", runArgs, (args) =>
  Effect.gen(function*() {
    const origin = yield* Effect.fromResult(Place.parse(args.place))
    const store = yield* ConfigFile.Store
    const document = yield* store.read
    // only a place the config knows, by the rule `point` writes by, before any prompt is read or CLI run
    const knows = (place: Place.Place) =>
      Effect.flatMap(ConfigFile.KnownClis, (known) =>
        Effect.fromResult(ConfigFile.checkPlace(document, place, { known, file: Option.getOrUndefined(store.file) })))
    yield* knows(origin)
    // the flags, else the config's run settings, else the preset's
    const file = document.run ?? {}
    const seconds = (value: number | undefined) =>
      Option.map(Option.fromUndefinedOr(value), (s) =>
        Duration.seconds(s))
    const named = presets[Option.getOrElse(args.preset, () => file.preset ?? "primary")]
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
    const first = Option.orElse(yield* timeOf(args.firstByte), () => seconds(file.firstByte))
    const idleFlag = yield* timeOf(args.idle)
    const quietFor = Option.orElse(idleFlag, () => seconds(file.idle))
    const within = Option.orElse(yield* timeOf(args.deadline), () => seconds(file.deadline))
    const attempts = Option.orElse(args.attempts, () => Option.fromUndefinedOr(file.attempts))
    if (Option.isSome(args.permission) && Result.isFailure(Settings.parsePermission(args.permission.value))) {
      return yield* new InvalidRun({
        reason: `--permission ${args.permission.value}: ${
          new Settings.InvalidPermission({ word: args.permission.value }).message
        }`
      })
    }
    if (Option.isSome(args.attempts) && args.attempts.value < 1) {
      return yield* new InvalidRun({ reason: `--attempts ${args.attempts.value}: a turn takes at least 1 go` })
    }
    if (Option.isSome(within) && Duration.isZero(within.value)) {
      return yield* new InvalidRun({ reason: "--deadline 0: a turn needs some time; write 90s, 10m…" })
    }
    if (args.resume && Option.isSome(args.session)) {
      return yield* new InvalidRun({ reason: "--continue and --session both name a conversation; give one" })
    }
    const badSession = Option.flatMapNullishOr(args.session, sessionProblem)
    if (Option.isSome(badSession)) return yield* new InvalidRun({ reason: badSession.value })
    const continued = args.resume ? Option.some(yield* Conversations.last(Place.format(origin))) : Option.none()
    const startAt = Option.isSome(continued)
      ? yield* knows(yield* Effect.fromResult(Place.parse(continued.value.at)))
      : origin
    const resumed = Option.orElse(
      Option.map(continued, (c) => ({ at: startAt, session: c.session })),
      () => Option.map(args.session, (id) => ({ at: startAt, session: id }))
    )
    // the file's send ceiling (limits.send), 0 for none
    const send = document.limits?.send
    const options: Agent.Options = {
      ...chosen.options,
      ...(send === undefined ? {} : { send: Duration.isZero(send) ? Option.none() : Option.some(send) }),
      firstByte: Option.match(first, {
        onNone: () => chosen.options.firstByte,
        onSome: (d) => Duration.isZero(d) ? Option.none() : Option.some(d)
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
    const skills: Array<string> = []
    for (const folder of args.skill) {
      const at = nodePath.resolve(folder)
      if (!fs.existsSync(nodePath.join(at, "SKILL.md"))) {
        return yield* new InvalidRun({
          reason:
            `--skill ${folder}: no SKILL.md in ${at}; a skill is a folder with its SKILL.md (the Agent Skills layout)`
        })
      }
      skills.push(at)
    }
    const settings = new Settings.Settings({
      ...Option.match(args.effort, { onNone: () => ({}), onSome: (effort) => ({ effort }) }),
      ...Option.match(Option.flatMap(args.permission, (word) => Result.getSuccess(Settings.parsePermission(word))), {
        onNone: () => ({}),
        onSome: (permission) => ({ permission })
      }),
      webSearch: !args.noWebSearch,
      skills
    })

    const text = yield* Option.match(Option.filter(args.prompt, (p) => p !== "-"), {
      onNone: () => reading,
      onSome: Effect.succeed
    })
    if (text.includes("\u0000")) return yield* new InvalidPrompt({ reason: "nul" })
    if (text.trim() === "") return yield* new InvalidPrompt({ reason: "empty" })
    Secret.holdPrompt(text)
    const terminal = yield* Terminal.Terminal
    // stdout closed early (`| head`) leaves the turn to finish rather than failing it
    const show = (text: string) => Effect.ignore(terminal.display(text))
    const line = (line: RunJson.Line) => show(RunJson.write(line) + "\n")
    const onTerminal = !args.json && !args.quiet && process.stderr.isTTY === true
    const countdown = onTerminal ? Countdown.on(process.stderr) : Countdown.none
    let answeredAt = startAt
    let sessionId: string | undefined = undefined
    const notices: Notice.Channel = {
      publish: (notice) =>
        Effect.gen(function*() {
          if (notice._tag === "Moving") answeredAt = notice.to
          if (args.json) return yield* line(RunJson.ofNotice(notice))
          if (args.quiet) return
          yield* countdown.stop
          yield* Console.error(Notice.format(notice))
          if (notice._tag === "Retrying" && !Duration.isZero(notice.wait)) {
            yield* countdown.start(notice.wait, `trying ${Place.format(notice.place)} again`)
          }
        }),
      watch: Effect.succeed(Stream.empty)
    }
    const onEvent = (shown: string, event: Backend.Event): Effect.Effect<string> =>
      Effect.gen(function*() {
        if (event._tag === "SessionStarted") sessionId = event.sessionId
        if (event._tag === "Moved") answeredAt = event.to
        if (args.json) return yield* Effect.as(line(RunJson.ofEvent(event)), shown)
        yield* countdown.stop
        if (event._tag === "Text" || (event._tag === "Result" && shown === "")) {
          return yield* Effect.as(show(event.text), shown + event.text)
        }
        return shown
      })

    const homes = yield* besideConfig("homes")
    const places = Layer.mergeAll(
      backendsOf(document, {
        homes,
        idle: Option.getOrUndefined(quietFor),
        idleForAll: Option.isSome(idleFlag),
        resume: Option.getOrUndefined(resumed)
      }),
      health(chosen.breaker)
    ).pipe(Layer.provide(NodeHttpClient.layerUndici))
    // The breaker preset's chain is LLM_FALLBACK_MODELS, read and checked before the turn starts.
    const world = chosen.name === "breaker" ? Layer.provideMerge(Preset.breakerSteps(startAt), places) : places
    yield* Effect.gen(function*() {
      // the place the turn starts at takes the agent's settings too, or the turn does not start there
      const starting = (yield* Backend.Backends).get(startAt.cli)
      const refusal = Option.flatMap(starting, (backend) => Settings.refusal(settings, backend.capabilities))
      if (Option.isSome(refusal)) {
        return yield* new InvalidRun({
          reason: `${
            Place.format(startAt)
          }: ${startAt.cli} ${refusal.value}; start at a place whose CLI can, or leave it out`
        })
      }
      const agent = yield* Agent.make(startAt, settings, options)
      const shown = yield* agent.turn(text).pipe(
        Stream.runFoldEffect(() => "", onEvent),
        Effect.ensuring(countdown.stop),
        Effect.mapError((failure) => new Unanswered({ failure })),
        Effect.tapError((unanswered) =>
          args.json
            ? line({
              type: "outcome",
              ok: false,
              status: unanswered.status,
              place: Place.format(unanswered.failure.place),
              kind: unanswered.failure._tag,
              message: unanswered.failure.message
            })
            : Effect.void
        )
      )
      if (sessionId !== undefined) {
        yield* Conversations.note(Place.format(origin), { at: Place.format(answeredAt), session: sessionId })
      }
      if (args.json) return yield* line({ type: "outcome", ok: true, status: 0, place: Place.format(answeredAt) })
      if (!shown.endsWith("\n")) yield* show("\n")
      if (onTerminal) yield* Console.error(`answered at ${Place.format(answeredAt)}`)
    }).pipe(
      Effect.scoped,
      Effect.provideService(Notice.Notices, notices),
      Effect.provide(world),
      exported
    )
  }).pipe(Effect.provide(editing(args.config)))).pipe(
    Command.withDescription(
      "Takes one turn at PLACE with failover along its chain: the answer on stdout as it streams, what\n" +
        "recovery does on stderr, and an exit status that says how the turn ended:\n\n" +
        `${exitStatusTable}\n\n` +
        "  fallback run local/qwen3:8b \"Say hello\"\n" +
        "  echo \"Say hello\" | fallback run claude@work/claude-opus-5 -\n" +
        "  fallback run claude@work/claude-opus-5 --permission edit --effort high \"Fix the failing test\"\n" +
        "  fallback run claude@work/claude-opus-5 --continue \"And now the other one\"\n" +
        "  fallback run codex/gpt-5.6-sol --json --first-byte 20s --deadline 5m \"Summarise README.md\""
    )
  )
