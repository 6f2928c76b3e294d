import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Backend from "@fallback/core/Backend"
import type { Cause } from "effect"
import { ConfigProvider, Console, Effect, Exit, Fiber, Layer, Option, Queue, Stdio, Terminal } from "effect"

import { Cli } from "../src/index.js"
import { capturing } from "./run.js"

const key = (name: string, input?: string, modifiers: Partial<Terminal.Key> = {}): Terminal.UserInput => ({
  input: Option.fromNullishOr(input),
  key: { name, ctrl: false, meta: false, shift: false, ...modifiers }
})

/** Keys as Node's readline reports them. */
export const keys = {
  up: key("up"),
  down: key("down"),
  enter: key("return", "\r"),
  shiftEnter: key("return", "\r", { shift: true }),
  altEnter: key("return", undefined, { meta: true }),
  ctrlJ: key("j", "\n", { ctrl: true }),
  lineFeed: key("enter", "\n"),
  escape: key("escape", undefined, { meta: true }),
  ctrlC: key("c", "\u0003", { ctrl: true }),
  backspace: key("backspace", "\u007f"),
  space: key("space", " "),
  char: (c: string) => key(c, c)
} as const

/** Each character of `text` typed. */
export const typed = (text: string): Array<Terminal.UserInput> => [...text].map(keys.char)

const ends = (input: Terminal.UserInput) => input.key.ctrl && (input.key.name === "c" || input.key.name === "d")

/**
 * A terminal whose keys are scripted. Like Node's, each prompt reads from its own queue, and
 * ctrl+c is delivered and then ends that queue; keys a prompt did not read go to the next one.
 * Once the script runs out the input ends, so a test that is a key short fails rather than waits.
 */
const scripted = (
  script: ReadonlyArray<Terminal.UserInput>,
  frames: Array<string>,
  rows: number
): Terminal.Terminal => {
  const backlog = [...script]
  return Terminal.make({
    columns: Effect.succeed(120),
    rows: Effect.succeed(rows),
    size: Effect.die("the page does not follow the terminal's size"),
    readLine: Effect.fail(new Terminal.QuitError()),
    display: (text) => Effect.sync(() => void frames.push(text)),
    readInput: Effect.gen(function*() {
      const queue = yield* Queue.make<Terminal.UserInput, Cause.Done>()
      let ended = backlog.length === 0
      while (!ended) {
        const input = backlog.shift()!
        Queue.offerUnsafe(queue, input)
        ended = ends(input) || backlog.length === 0
      }
      Queue.endUnsafe(queue)
      yield* Effect.addFinalizer(() =>
        Effect.map(Effect.orElseSucceed(Queue.clear(queue), () => []), (left) => void backlog.unshift(...left))
      )
      return queue
    })
  })
}

/** What `fallback edit` printed, whether it succeeded, and every frame it drew. */
export interface Session {
  readonly out: string
  readonly err: string
  readonly ok: boolean
  readonly frames: ReadonlyArray<string>
}

const colourless = (text: string) => text.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, "").replace(/\u0007|\r/g, "")

/** The frames that show the page, without colour or cursor codes, oldest first. */
export const pages = (session: Session): Array<string> =>
  session.frames.map(colourless).filter((frame) => frame.startsWith("fallback edit:"))

/** The frames that ask something, without colour or cursor codes, oldest first. */
export const questions = (session: Session): Array<string> =>
  session.frames.map(colourless).filter((frame) => frame.includes("esc back"))

const backend = (cli: string, models: ReadonlyArray<string>): Backend.Backend => ({
  cli,
  capabilities: { resume: true, webSearchOff: true, callbacks: true, models: models.map((name) => ({ name })) },
  open: () => Effect.die("the page opens no sessions")
})

/** Backends that list models for claude and codex, and none for gemini. */
export const backends = Backend.Backends.layer([
  backend("claude", ["claude-opus-5", "claude-sonnet-5"]),
  backend("codex", ["gpt-5.6-sol"]),
  backend("gemini", [])
])

/**
 * Runs `fallback edit ARGS…` in this process on the config `file`, pressing `script` in order, in
 * a terminal (unless `tty` is false) of 120 columns and `rows` rows (40 unless said).
 */
export const edit = (
  file: string,
  script: ReadonlyArray<Terminal.UserInput>,
  options: {
    readonly backends?: Layer.Layer<Backend.Backends>
    readonly args?: ReadonlyArray<string>
    readonly tty?: boolean
    readonly rows?: number
    /** The command the keys are pressed in (`edit` unless said). */
    readonly command?: string
    /** Variables the command sees besides FALLBACK_CONFIG. */
    readonly env?: Readonly<Record<string, string>>
  } = {}
): Effect.Effect<Session> =>
  Effect.gen(function*() {
    const out: Array<string> = []
    const err: Array<string> = []
    const frames: Array<string> = []
    const console = yield* Console.Console
    const tty = options.tty ?? true
    const fiber = yield* Cli.main(["node", "fallback", options.command ?? "edit", ...(options.args ?? [])]).pipe(
      Effect.provideService(Console.Console, capturing(console, out, err)),
      Effect.provideService(
        ConfigProvider.ConfigProvider,
        ConfigProvider.fromEnvRecord({ ...options.env, FALLBACK_CONFIG: file })
      ),
      Effect.provide(Layer.mergeAll(
        Layer.succeed(Terminal.Terminal, scripted(script, frames, options.rows ?? 40)),
        Stdio.layerTest({ stdinIsTerminal: Effect.succeed(tty), stdoutIsTerminal: Effect.succeed(tty) })
      )),
      Effect.provide(options.backends ?? Layer.empty),
      Effect.provide(NodeServices.layer),
      Effect.forkChild
    )
    const exit = yield* Fiber.await(fiber)
    return { out: out.join("\n"), err: err.join("\n"), ok: Exit.isSuccess(exit), frames }
  })
