/**
 * The models each agent CLI runs, kept by hand: none of the CLIs lists its models offline and
 * cheaply (claude, codex and gemini have no listing command; `opencode models` fetches
 * models.dev on a fresh home), so the names are maintained here, current as of 2026-12. A model
 * not listed is added in the config (`clis.NAME.models`) until this list knows it.
 */

const claude = [
  "claude-opus-5",
  "claude-sonnet-5",
  "claude-opus-4-5",
  "claude-sonnet-4-5",
  "claude-haiku-4-5",
  "claude-opus-4-1",
  "claude-sonnet-4",
  // the CLI's own aliases for the newest of each
  "opus",
  "sonnet",
  "haiku"
]

const codex = [
  "gpt-5.6-sol",
  "gpt-5.5",
  "gpt-5.2",
  "gpt-5.2-codex",
  "gpt-5.1",
  "gpt-5.1-codex",
  "gpt-5.1-codex-max",
  "gpt-5.1-codex-mini",
  "gpt-5",
  "gpt-5-codex",
  "gpt-5-mini"
]

const gemini = [
  "gemini-3-pro",
  "gemini-3-pro-preview",
  "gemini-3-flash",
  "gemini-2.5-pro",
  "gemini-2.5-flash",
  "gemini-2.5-flash-lite"
]

const antigravity = ["gemini-3-pro", "gemini-3-flash", "claude-sonnet-4-5", "claude-opus-4-5", "gpt-oss-120b"]

// opencode names a model PROVIDER/MODEL, the provider being one of its built-in ones
const opencode = [
  ...claude.filter((name) => name.startsWith("claude-")).map((name) => `anthropic/${name}`),
  ...codex.map((name) => `openai/${name}`),
  ...gemini.map((name) => `google/${name}`)
]

/** @internal */
export const byCli: Readonly<Record<string, ReadonlyArray<string>>> = { claude, codex, gemini, opencode, antigravity }

/** @internal */
export const models = (cli: string, own: ReadonlyArray<string> = []): ReadonlyArray<string> => [
  ...new Set([...(byCli[cli] ?? []), ...own])
]
