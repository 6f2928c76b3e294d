import * as NodeContext from "@effect/platform-node/NodeContext"
import type { Console } from "effect"
import { ConfigProvider, Effect, Exit } from "effect"
import { Cli } from "../src/index.js"

/** What a command printed on stdout and stderr, and whether it succeeded. */
export interface Ran {
  readonly out: string
  readonly err: string
  readonly ok: boolean
}

/** Runs `fallback ARGS…` in this process, with FALLBACK_CONFIG set to `file`. */
export const fallback = (file: string, ...args: Array<string>): Effect.Effect<Ran> => fallbackWith({}, file, ...args)

/** Runs `fallback ARGS…` in this process with these environment variables and FALLBACK_CONFIG. */
export const fallbackWith = (
  env: Readonly<Record<string, string>>,
  file: string,
  ...args: Array<string>
): Effect.Effect<Ran> =>
  Effect.gen(function*() {
    const out: Array<string> = []
    const err: Array<string> = []
    const console = yield* Effect.console
    const capturing: Console.Console = {
      ...console,
      log: (...items) => Effect.sync(() => void out.push(items.join(" "))),
      error: (...items) => Effect.sync(() => void err.push(items.join(" ")))
    }
    const exit = yield* Cli.main(["node", "fallback", ...args]).pipe(
      Effect.withConsole(capturing),
      Effect.withConfigProvider(ConfigProvider.fromMap(new Map([...Object.entries(env), ["FALLBACK_CONFIG", file]]))),
      Effect.provide(NodeContext.layer),
      Effect.exit
    )
    return { out: out.join("\n"), err: err.join("\n"), ok: Exit.isSuccess(exit) }
  })
