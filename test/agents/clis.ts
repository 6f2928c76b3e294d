/**
 * The agent CLIs the agents suite runs, at the versions it was recorded with, and where they are
 * installed: a cache folder outside the workspace's dependencies, reused when present.
 */
import * as path from "node:path"

/** A CLI as the suite installs it: its npm package, the pinned version and its binary. */
export interface Pinned {
  readonly cli: "claude" | "codex" | "gemini" | "opencode"
  readonly npm: string
  readonly version: string
}

export const pinned: ReadonlyArray<Pinned> = [
  { cli: "claude", npm: "@anthropic-ai/claude-code", version: "2.1.332" },
  { cli: "codex", npm: "@openai/codex", version: "0.171.0" },
  { cli: "gemini", npm: "@google/gemini-cli", version: "0.61.0" },
  { cli: "opencode", npm: "opencode-ai", version: "1.18.33" }
]

/** The cache folder: `FALLBACK_AGENTS_CACHE`, or `.cache/agents` at the repository root. */
export const cache = process.env.FALLBACK_AGENTS_CACHE ?? path.resolve(import.meta.dirname, "../../.cache/agents")

/** Where a CLI's binary lands in the cache. */
export const bin = (cli: Pinned["cli"]): string => path.join(cache, "node_modules", ".bin", cli)

/** Where claude and opencode are installed with `--ignore-scripts`: npm's stubs, never replaced by the real binary. */
export const stubs = path.join(cache, "stubs")

/** A stub's binary. */
export const stub = (cli: "claude" | "opencode"): string => path.join(stubs, "node_modules", ".bin", cli)
