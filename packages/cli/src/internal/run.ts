import * as fs from "node:fs"
import * as nodePath from "node:path"

import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as Agent from "@fallback/core/Agent"
import * as Backend from "@fallback/core/Backend"
import * as ConfigFile from "@fallback/core/ConfigFile"
import type * as Failure from "@fallback/core/Failure"
import * as Notice from "@fallback/core/Notice"
import * as Place from "@fallback/core/Place"
import * as Preset from "@fallback/core/Preset"
import * as Secret from "@fallback/core/Secret"
import * as Settings from "@fallback/core/Settings"
import * as Command from "effect/cli/Command"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"

import { backendsOf } from "./backends.js"
import { besideConfig, editing } from "./config.js"
import * as Conversations from "./conversations.js"
import { exitStatusTable } from "./outcome.js"
import { runArgs } from "./runArgs.js"
import { InvalidRun, runOptions } from "./runOptions.js"
import { showing } from "./runShow.js"
import { health } from "./status.js"
import { exported } from "./telemetry.js"

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
    const { chosen, idleFlag, options, quietFor } = yield* runOptions(args, document)
    if (Option.isSome(args.permission) && Result.isFailure(Settings.parsePermission(args.permission.value))) {
      return yield* new InvalidRun({
        reason: `--permission ${args.permission.value}: ${
          new Settings.InvalidPermission({ word: args.permission.value }).message
        }`
      })
    }
    if (args.resume && Option.isSome(args.session)) {
      return yield* new InvalidRun({ reason: "--continue and --session both name a conversation; give one" })
    }
    const badSession = Option.flatMapNullishOr(args.session, sessionProblem)
    if (Option.isSome(badSession)) {
      return yield* new InvalidRun({ reason: badSession.value })
    }
    const continued = args.resume ? Option.some(yield* Conversations.last(Place.format(origin))) : Option.none()
    const startAt = Option.isSome(continued)
      ? yield* knows(yield* Effect.fromResult(Place.parse(continued.value.at)))
      : origin
    const resumed = Option.orElse(
      Option.map(continued, (c) => ({ at: startAt, session: c.session })),
      () =>
        Option.map(args.session, (id) => ({ at: startAt, session: id }))
    )
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
      ...Option.match(
        Option.flatMap(args.permission, (word) =>
          Result.getSuccess(Settings.parsePermission(word))),
        {
          onNone: () => ({}),
          onSome: (permission) => ({ permission })
        }
      ),
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
    // --json answers whole too: a line once written is never taken back
    const shape = { json: args.json, quiet: args.quiet, whole: args.whole || args.json }
    const shown = yield* showing(shape, startAt)
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
      // A whole answer is shown once the turn has all of it, so a stream cut mid-answer moves on
      // unseen; a streamed one is shown as it comes, so a cut after content ends it as a Cut.
      const answer: Effect.Effect<void, Failure.Failure | Agent.Cut> = shape.whole
        ? Effect.flatMap(agent.reply(text), shown.events)
        : Stream.runForEach(agent.turn(text), shown.onEvent)
      yield* answer.pipe(Effect.ensuring(shown.stop), Effect.catch(shown.failed))
      const sessionId = shown.sessionId()
      if (sessionId !== undefined) {
        yield* Conversations.note(Place.format(origin), { at: Place.format(shown.answeredAt()), session: sessionId })
      }
      yield* shown.answered
    }).pipe(
      Effect.scoped,
      Effect.provideService(Notice.Notices, shown.notices),
      Effect.provide(world),
      exported
    )
  }).pipe(Effect.provide(editing(args.config)))).pipe(
    Command.withDescription(
      "Takes one turn at PLACE with failover along its chain: the answer on stdout as it streams, what\n" +
        "recovery does on stderr, and an exit status that says how the turn ended. A streamed answer cut\n" +
        "after part of it was printed goes on at the next place where that place can continue it, else\n" +
        "ends with status 24; --whole (and --json) print nothing of the answer until the turn has all of\n" +
        "it, so a cut mid-answer moves on unseen. run.limits in the config sets the first-byte and stall\n" +
        "limits of HTTP and CLI places each ({\"run\":{\"limits\":{\"http\":{\"firstByte\":15,\"stall\":30}}}}).\n\n" +
        `${exitStatusTable}\n\n` +
        "  fallback run local/qwen3:8b \"Say hello\"\n" +
        "  echo \"Say hello\" | fallback run claude@work/claude-opus-5 -\n" +
        "  fallback run claude@work/claude-opus-5 --permission edit --effort high \"Fix the failing test\"\n" +
        "  fallback run claude@work/claude-opus-5 --continue \"And now the other one\"\n" +
        "  fallback run codex/gpt-5.6-sol --json --first-byte 20s --deadline 5m \"Summarise README.md\"\n" +
        "  fallback run openai/gpt-5 --preset api --whole --stall 20s \"Summarise README.md\""
    )
  )
