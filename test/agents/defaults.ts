/**
 * The CLIs as a newcomer runs them against `fallback serve`: at their default models (no `--model`
 * / `-m`), pointed by the one setting each reads — claude by `ANTHROPIC_BASE_URL`, codex's built-in
 * OpenAI provider by `-c openai_base_url=…` (codex 0.171 does not read `OPENAI_BASE_URL`).
 */
import { bin } from "./clis.js"
import { claudeEnv, codexExec, type Pointed, type Ran, run } from "./run.js"

/** claude -p at its default model, streamed JSON, pointed at `baseUrl` (no /v1) with `key`. */
export const claude = (
  prompt: string,
  options: Pointed
): Promise<Ran> =>
  run(bin("claude"), [
    "-p",
    "--output-format",
    "stream-json",
    "--verbose",
    "--allowedTools",
    "Read,Bash",
    "--",
    prompt
  ], { cwd: options.cwd, env: claudeEnv(options) })

/** codex exec at its default model, JSON, its built-in provider at `baseUrl` (with /v1), `OPENAI_API_KEY` set, a fresh CODEX_HOME. */
export const codex = (prompt: string, options: Pointed): Promise<Ran> =>
  codexExec(prompt, options.cwd, ["-c", `openai_base_url="${options.baseUrl}"`], { OPENAI_API_KEY: options.key })
