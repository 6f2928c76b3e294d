import * as Console from "effect/Console"
import * as Effect from "effect/Effect"

const escapes = /\u001b\[[0-9;]*m/g

/**
 * Whether output may be coloured: a terminal, and no `NO_COLOR` (https://no-color.org).
 *
 * @internal
 */
export const colourful = (env: NodeJS.ProcessEnv, stream: { readonly isTTY?: boolean }): boolean =>
  (env.NO_COLOR === undefined || env.NO_COLOR === "") && stream.isTTY === true

const plain = (args: ReadonlyArray<unknown>) =>
  args.map((arg) => typeof arg === "string" ? arg.replace(escapes, "") : arg)

/**
 * Runs an effect with a console that drops colour codes from what it prints.
 *
 * @internal
 */
export const withoutColour = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Console.consoleWith((console) =>
    Effect.provideService(
      effect,
      Console.Console,
      {
        ...console,
        log: (...args) => console.log(...plain(args)),
        error: (...args) => console.error(...plain(args)),
        info: (...args) => console.info(...plain(args)),
        warn: (...args) => console.warn(...plain(args))
      } satisfies Console.Console
    )
  )
