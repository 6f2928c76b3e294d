import * as NodeServices from "@effect/platform-node/NodeServices"
import { ConfigProvider, Console, Effect, Exit } from "effect"
import { Cli } from "../src/index.js"

/** What a command printed on stdout and stderr, and whether it succeeded. */
export interface Ran {
  readonly out: string
  readonly err: string
  readonly ok: boolean
}

/** Runs `fallback ARGS…` in this process, with FALLBACK_CONFIG set to `file`. */
export const fallback = (file: string, ...args: Array<string>): Effect.Effect<Ran> => fallbackWith({}, file, ...args)

/** A console that keeps what is logged and what is told on stderr, each call a line. */
export const capturing = (console: Console.Console, out: Array<string>, err: Array<string>): Console.Console => ({
  ...console,
  log: (...items) => void out.push(items.join(" ")),
  error: (...items) => void err.push(items.join(" "))
})

/** Runs `fallback ARGS…` in this process with these environment variables and FALLBACK_CONFIG. */
export const fallbackWith = (
  env: Readonly<Record<string, string>>,
  file: string,
  ...args: Array<string>
): Effect.Effect<Ran> =>
  Effect.gen(function*() {
    const out: Array<string> = []
    const err: Array<string> = []
    const console = yield* Console.Console
    const exit = yield* Cli.main(["node", "fallback", ...args]).pipe(
      Effect.provideService(Console.Console, capturing(console, out, err)),
      Effect.provideService(
        ConfigProvider.ConfigProvider,
        ConfigProvider.fromEnvRecord({ ...env, FALLBACK_CONFIG: file })
      ),
      Effect.provide(NodeServices.layer),
      Effect.exit
    )
    return { out: out.join("\n"), err: err.join("\n"), ok: Exit.isSuccess(exit) }
  })
