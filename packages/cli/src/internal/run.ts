import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Terminal from "@effect/platform/Terminal"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as Agent from "@fallback/core/Agent"
import * as ConfigFile from "@fallback/core/ConfigFile"
import * as Place from "@fallback/core/Place"
import * as Preset from "@fallback/core/Preset"
import * as Secret from "@fallback/core/Secret"
import * as Settings from "@fallback/core/Settings"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { backendsOf } from "./backends.js"
import { config, editing } from "./config.js"
import { exitStatusTable, Unanswered } from "./outcome.js"
import { health } from "./status.js"
import { exported } from "./telemetry.js"

const presets = { primary: Preset.primary, escalating: Preset.escalating, breaker: Preset.breaker } as const

const place = Args.text({ name: "place" }).pipe(Args.withDescription("where the turn starts: CLI[@ACCOUNT]/MODEL"))

const prompt = Args.text({ name: "prompt" }).pipe(
  Args.withDescription("the prompt; - or nothing reads it from stdin"),
  Args.optional
)

const preset = Options.choice("preset", ["primary", "escalating", "breaker"]).pipe(
  Options.withDescription("how turns recover: the primary design, or one of the two other systems"),
  Options.withDefault("primary" as const)
)

/**
 * A prompt no agent CLI can be given.
 *
 * @internal
 */
export class InvalidPrompt extends Schema.TaggedError<InvalidPrompt>("@fallback/cli/InvalidPrompt")("InvalidPrompt", {}) {
  override get message(): string {
    return "the prompt holds a NUL byte (\\u0000), which no agent CLI can be given; remove it"
  }
}

const stdin = Effect.async<string>((resume) => {
  let text = ""
  process.stdin.setEncoding("utf8")
  process.stdin.on("data", (chunk: string) => (text += chunk))
  process.stdin.on("end", () => resume(Effect.succeed(text)))
})

/** @internal */
export const run = Command.make("run", { config, place, preset, prompt }, (args) =>
  Effect.gen(function*() {
    const text = yield* Option.match(Option.filter(args.prompt, (p) => p !== "-"), {
      onNone: () => stdin,
      onSome: Effect.succeed
    })
    if (text.includes("\u0000")) return yield* Effect.fail(new InvalidPrompt())
    Secret.holdPrompt(text)
    const terminal = yield* Terminal.Terminal
    // stdout closed early (`| head`) leaves the turn to finish rather than failing it
    const show = (text: string) => Effect.ignore(terminal.display(text))
    const document = yield* (yield* ConfigFile.Store).read
    const chosen = presets[args.preset]
    const send = document.limits?.send
    // The file's send ceiling, in seconds; 0 is none.
    const options = send === undefined
      ? chosen.options
      : { ...chosen.options, send: Duration.isZero(send) ? Option.none() : Option.some(send) }
    const places = Layer.mergeAll(backendsOf(document), health(chosen.breaker)).pipe(
      Layer.provide(NodeHttpClient.layerUndici)
    )
    // The breaker preset's chain is LLM_FALLBACK_MODELS, read and checked before the turn starts.
    const world = args.preset === "breaker"
      ? Layer.provideMerge(Preset.breakerSteps(yield* Place.parse(args.place)), places)
      : places
    yield* Effect.gen(function*() {
      const agent = yield* Agent.make(args.place, Settings.plain, options)
      const shown = yield* agent.turn(text).pipe(
        Stream.runFoldEffect("", (shown, event) =>
          event._tag === "Text" || (event._tag === "Result" && shown === "")
            ? Effect.as(show(event.text), shown + event.text)
            : Effect.succeed(shown)),
        Effect.mapError((failure) => new Unanswered({ failure }))
      )
      if (!shown.endsWith("\n")) yield* show("\n")
    }).pipe(
      Effect.scoped,
      Effect.provide(world),
      exported
    )
  }).pipe(Effect.provide(editing(args.config)))).pipe(
    Command.withDescription(
      "Takes one turn at PLACE with failover along its chain: the answer on stdout as it streams, what\n" +
        "recovery does on stderr, and an exit status that says how the turn ended:\n\n" +
        `${exitStatusTable}\n\n` +
        "  fallback run local/qwen3:8b \"Say hello\"\n  echo \"Say hello\" | fallback run claude@work/claude-opus-5 -"
    )
  )
