/**
 * The `fallback` command: steps, chains, accounts, waits.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as ValidationError from "@effect/cli/ValidationError"
import * as Secret from "@fallback/core/Secret"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { accounts } from "./internal/accounts.js"
import { demo } from "./internal/demo.js"
import { doctor } from "./internal/doctor.js"
import { edit } from "./internal/edit.js"
import { run as runTurn } from "./internal/run.js"
import { status } from "./internal/status.js"
import { chain, clear, list, point, retry } from "./internal/steps.js"
import { waits } from "./internal/waits.js"

/**
 * The command tree.
 *
 * @since 0.1.0
 * @category commands
 */
export const command = Command.make("fallback").pipe(
  Command.withDescription(
    "Keeps an AI agent answering when the place it runs at fails. A place is CLI[@ACCOUNT]/MODEL.\n\n" +
      "  fallback point claude@work/claude-opus-5 codex@key/gpt-5.6-sol\n" +
      "  fallback retry claude@work/claude-opus-5 --tries 3 --policy exponential --timeout 90s\n" +
      "  fallback chain claude@work/claude-opus-5"
  ),
  Command.withSubcommands([list, point, retry, clear, chain, accounts, waits, runTurn, status, doctor, edit, demo])
)

/**
 * Runs the command line on `process.argv`-shaped arguments.
 *
 * @since 0.1.0
 * @category running
 */
export const run = Command.run(command, { name: "fallback", version: "0.1.0" })

/**
 * Runs the command line and tells a person what went wrong in one line on stderr (the command
 * line's own usage errors are already told by it).
 *
 * @since 0.1.0
 * @category running
 */
export const main = (argv: ReadonlyArray<string>) =>
  run(argv).pipe(
    Effect.tapError((error) =>
      ValidationError.isValidationError(error) ? Effect.void : Console.error(`fallback: ${Secret.mask(String(error.message))}`)
    )
  )
