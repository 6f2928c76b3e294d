import * as CliConfig from "effect/cli/CliConfig"
import * as CliOutput from "effect/cli/CliOutput"
import * as Command from "effect/cli/Command"
import * as GlobalFlag from "effect/cli/GlobalFlag"
import type * as HelpDoc from "effect/cli/HelpDoc"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"

/**
 * A command of `fallback`: what it runs on (the platform the bin provides), and its errors, each
 * told by its message.
 *
 * @internal
 */
export type Loaded = Command.Command<any, any, any, { readonly message: string }, Command.Environment>

/**
 * One command as the help shows it: how it is called, one line about it, and how to load the
 * command itself (its description, examples and options are read from it, so they are written
 * once). A command is loaded only when it is run or its help is asked for, so a start loads the
 * code of one command alone.
 *
 * @internal
 */
export interface Entry {
  readonly name: string
  readonly usage: string
  readonly summary: string
  readonly load: () => Promise<Loaded>
}

/**
 * A command's help document, as effect/cli builds it for `--help`: the command is run on `--help`
 * alone, with a presenter that keeps the document instead of printing it.
 *
 * @internal
 */
export const docOf = (command: Loaded): Effect.Effect<HelpDoc.HelpDoc, never, Command.Environment> =>
  Effect.suspend(() => {
    let doc: HelpDoc.HelpDoc | undefined
    const presenter: CliOutput.Presenter = {
      present: (event) => Effect.sync(() => void (event._tag === "Version" ? undefined : (doc ??= event.helpDoc)))
    }
    return Command.runWith(command, { version: "", renderErrors: false })(["--help"]).pipe(
      Effect.ignore,
      Effect.provideService(CliOutput.Presenter, presenter),
      Effect.provideService(CliConfig.CliConfig, CliConfig.make({ builtIns: [GlobalFlag.Help] })),
      Effect.map(() => doc!)
    )
  })

const choicesIn = /\s*\(choices: (.*)\)$/

/**
 * The values a flag takes when it is one of a few (`--policy`), as its help says them.
 *
 * @internal
 */
export const choicesOf = (flag: HelpDoc.FlagDoc): ReadonlyArray<string> | undefined => {
  const found = Option.getOrElse(flag.description, () => "").match(choicesIn)
  return flag.type === "choice" && found !== null ? found[1]!.split(", ") : undefined
}

/**
 * A flag's names as typed: `-j`, `--json`.
 *
 * @internal
 */
export const namesOf = (flag: HelpDoc.FlagDoc): ReadonlyArray<string> => [...flag.aliases, `--${flag.name}`]

const termOf = (flag: HelpDoc.FlagDoc) => {
  const choices = choicesOf(flag)
  const value = flag.type === "boolean" ? "" : ` ${choices === undefined ? flag.type : choices.join(" | ")}`
  return `${namesOf(flag).join(", ")}${value}`
}

/**
 * The options a command takes, as typed: `--json`, `-c`…
 *
 * @internal
 */
export const optionNames = (doc: HelpDoc.HelpDoc): ReadonlyArray<string> => doc.flags.flatMap(namesOf)

// headings in bold: the bin drops colour where it is not wanted (not a terminal, NO_COLOR)
const heading = (text: string) => `\u001b[1m${text}\u001b[0m`

/**
 * A command's own help: usage, what it does, its options one a line, its examples.
 *
 * @internal
 */
export const commandHelp = (entry: Entry, doc: HelpDoc.HelpDoc): string => {
  const lines = doc.description.split("\n")
  const examples = lines.filter((line) => line.startsWith("  fallback ") || line.startsWith("  echo "))
  const about = lines.filter((line) => !examples.includes(line)).join("\n").trim()
  const options = doc.flags.map((flag) => ({
    term: termOf(flag),
    text: Option.getOrElse(flag.description, () => "").replace(choicesIn, "")
  }))
  const width = Math.min(22, Math.max(0, ...options.map((o) => o.term.length))) + 2
  const option = (o: { readonly term: string; readonly text: string }) =>
    o.term.length < width ? `  ${o.term.padEnd(width)}${o.text}` : `  ${o.term}\n  ${"".padEnd(width)}${o.text}`
  return [
    `${heading("Usage:")} ${entry.usage}`,
    "",
    about,
    ...(options.length === 0 ? [] : ["", heading("Options:"), ...options.map(option)]),
    ...(examples.length === 0 ? [] : ["", heading("Examples:"), ...examples]),
    ""
  ].join("\n")
}

/**
 * The root help: one line per command.
 *
 * @internal
 */
export const rootHelp = (entries: ReadonlyArray<Entry>, version: string): string => {
  const width = Math.max(...entries.map((e) => e.name.length)) + 2
  return [
    `fallback ${version}: keeps an AI agent answering when the place it runs at fails.`,
    "A place is CLI[@ACCOUNT]/MODEL: claude@work/claude-opus-5, codex/gpt-5.6-sol, local/qwen3:8b.",
    "",
    `${heading("Usage:")} fallback COMMAND [options]`,
    "",
    heading("Commands:"),
    ...entries.filter((e) => !e.name.includes(" ")).map((e) => `  ${e.name.padEnd(width)}${e.summary}`),
    "",
    heading("Examples:"),
    "  fallback init",
    "  fallback point claude@work/claude-opus-5 codex@key/gpt-5.6-sol",
    "  fallback retry claude@work/claude-opus-5 --tries 3 --policy exponential --timeout 90s",
    "  fallback run claude@work/claude-opus-5 \"Fix the failing test\"",
    "",
    "Every command takes --config FILE (default: $FALLBACK_CONFIG, else ~/.config/fallback/config.json).",
    "fallback COMMAND --help shows a command's options and examples; fallback --version its version.",
    ""
  ].join("\n")
}
