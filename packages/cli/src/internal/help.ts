import * as CliConfig from "@effect/cli/CliConfig"
import type * as Command from "@effect/cli/Command"
import * as CommandModule from "@effect/cli/Command"
import type * as HelpDoc from "@effect/cli/HelpDoc"
import type * as Span from "@effect/cli/HelpDoc/Span"
import type * as CommandExecutor from "@effect/platform/CommandExecutor"
import type * as FileSystem from "@effect/platform/FileSystem"
import type * as Path from "@effect/platform/Path"
import type * as Terminal from "@effect/platform/Terminal"

/**
 * A command of `fallback`: what it runs on (the platform the bin provides), and its errors, each
 * told by its message.
 *
 * @internal
 */
export type Loaded = Command.Command<
  any,
  CommandExecutor.CommandExecutor | FileSystem.FileSystem | Path.Path | Terminal.Terminal,
  { readonly message: string },
  any
>

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

const textOf = (span: Span.Span): string => {
  switch (span._tag) {
    case "Text":
    case "URI":
      return span.value
    case "Highlight":
    case "Weak":
    case "Strong":
      return textOf(span.value)
    case "Sequence":
      return textOf(span.left) + textOf(span.right)
  }
}

interface Read {
  readonly paragraphs: Array<{ readonly header: string; readonly text: string }>
  readonly definitions: Array<{ readonly header: string; readonly term: string; readonly text: Array<string> }>
}

const paragraphs = (doc: HelpDoc.HelpDoc): Array<string> => {
  switch (doc._tag) {
    case "Paragraph":
      return [textOf(doc.value)]
    case "Sequence":
      return [...paragraphs(doc.left), ...paragraphs(doc.right)]
    case "Enumeration":
      return doc.elements.flatMap(paragraphs)
    default:
      return []
  }
}

/**
 * A help document's text, paragraphs one a line, without styles.
 *
 * @internal
 */
export const textOfDoc = (doc: HelpDoc.HelpDoc): string => {
  switch (doc._tag) {
    case "Header":
    case "Paragraph":
      return textOf(doc.value)
    case "DescriptionList":
      return doc.definitions.map(([term, description]) => `${textOf(term)} ${textOfDoc(description)}`).join("\n")
    case "Sequence":
      return [textOfDoc(doc.left), textOfDoc(doc.right)].filter((t) => t !== "").join("\n")
    case "Enumeration":
      return doc.elements.map(textOfDoc).join("\n")
    case "Empty":
      return ""
  }
}

const read = (doc: HelpDoc.HelpDoc, into: Read, header: { value: string }): Read => {
  switch (doc._tag) {
    case "Header":
      header.value = textOf(doc.value)
      break
    case "Paragraph":
      into.paragraphs.push({ header: header.value, text: textOf(doc.value) })
      break
    case "DescriptionList":
      for (const [term, description] of doc.definitions) {
        into.definitions.push({ header: header.value, term: textOf(term), text: paragraphs(description) })
      }
      break
    case "Sequence":
      read(doc.left, into, header)
      read(doc.right, into, header)
      break
    case "Enumeration":
      for (const element of doc.elements) read(element, into, header)
      break
    case "Empty":
      break
  }
  return into
}

// what @effect/cli says of every option of a kind; the help keeps only what was said of this one
const boilerplate =
  /^(?:One of the following|A true or false value|A user-defined piece of text|An integer|This setting is optional|This option may be repeated|A file system path|This setting is)/

const built = new Set(["--completions", "--log-level", "--wizard", "--version", "(-h,"])

const values: Record<string, string> = {
  "--config": "FILE",
  "--config-dir": "DIR",
  "--session": "ID",
  "--skill": "NAME",
  "--first-byte": "TIME",
  "--idle": "TIME",
  "--deadline": "TIME",
  "--timeout": "TIME",
  "--attempts": "N",
  "--tries": "N",
  "--port": "N",
  "--lifetime": "TIME",
  "--env": "VAR=fromEnv:OTHER",
  "--effort": "LEVEL",
  "--permission": "RUNG"
}

const termOf = (term: string) =>
  term.replace(/^\((-\w), (--[\w-]+)\)/, "$1, $2").replace(
    /^((?:-\w, )?(--[\w-]+)) (?:text|integer)(\.\.\.)?$/,
    (_, flag: string, name: string, many: string | undefined) =>
      `${flag} ${values[name] ?? "VALUE"}${many === undefined ? "" : "…"}`
  )

// headings in bold: the bin drops colour where it is not wanted (not a terminal, NO_COLOR)
const heading = (text: string) => `\u001b[1m${text}\u001b[0m`

const readCommand = (command: Loaded) =>
  read(CommandModule.getHelp(command, CliConfig.defaultConfig), { paragraphs: [], definitions: [] }, {
    value: ""
  })

const optionsOf = (doc: Read) =>
  doc.definitions.filter((d) => d.header === "OPTIONS" && !built.has(d.term.split(" ")[0]!)).map((d) => ({
    term: termOf(d.term),
    names: [...termOf(d.term).matchAll(/(?:^|, )(--?[\w-]+)/g)].map(([, name]) => name!),
    text: d.text.filter((t) => !boilerplate.test(t)).join(" ")
  }))

/**
 * The options a command takes, as typed: `--json`, `-c`…
 *
 * @internal
 */
export const optionNames = (command: Loaded): ReadonlyArray<string> =>
  optionsOf(readCommand(command)).flatMap((o) => o.names)

/**
 * The names of the option of `command` whose value is one of `choices` (`--policy`), if one is.
 *
 * @internal
 */
export const optionChoosing = (command: Loaded, choices: ReadonlyArray<string>): ReadonlyArray<string> => {
  for (const { header, term } of readCommand(command).definitions) {
    const found = term.match(/^(\((-\w), (--[\w-]+)\)|--[\w-]+) (.*)$/)
    if (header !== "OPTIONS" || found === null || found[4] !== choices.join(" | ")) continue
    return found[2] === undefined ? [found[1]!] : [found[2], found[3]!]
  }
  return []
}

/**
 * A command's own help: usage, what it does, its options one a line, its examples.
 *
 * @internal
 */
export const commandHelp = (entry: Entry, command: Loaded): string => {
  const doc = readCommand(command)
  const description = doc.paragraphs.filter((p) => p.header === "DESCRIPTION").map((p) => p.text).join("\n\n")
  const lines = description.split("\n")
  const examples = lines.filter((line) => line.startsWith("  fallback ") || line.startsWith("  echo "))
  const about = lines.filter((line) => !examples.includes(line)).join("\n").trim()
  const options = optionsOf(doc)
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
