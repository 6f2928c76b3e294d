/**
 * The models each agent CLI runs: a maintained list per CLI (none of them lists its models offline
 * and cheaply), plus the config's own for it (`clis.NAME.models`). It is what a CLI backend
 * declares in its capabilities, so the breaker preset's `LLM_FALLBACK_MODELS`, `fallback point`
 * and the edit page know a claude or codex model, and offer the nearest names on a typo.
 * opencode's models are written `PROVIDER/MODEL` (`anthropic/claude-sonnet-4-5`).
 *
 * @since 0.1.0
 */
import * as internal from "./internal/cli/catalogue.js"

/**
 * The CLIs the catalogue has a list for.
 *
 * @since 0.1.0
 * @category constants
 */
export const clis: ReadonlyArray<string> = Object.keys(internal.byCli)

/**
 * The models a CLI runs: the maintained list, then `own` (the config's) not already in it; none
 * for a CLI the catalogue does not know.
 *
 * @since 0.1.0
 * @category getters
 */
export const models: (cli: string, own?: ReadonlyArray<string>) => ReadonlyArray<string> = internal.models
