/**
 * The CLIs as a newcomer runs them against `fallback serve`: at their default models (no `--model`
 * / `-m`), pointed by the one setting each reads — claude by `ANTHROPIC_BASE_URL`, codex's built-in
 * OpenAI provider by `-c openai_base_url=…` (codex 0.171 does not read `OPENAI_BASE_URL`).
 */
import * as fs from "node:fs"
import * as path from "node:path"

import { bin } from "./clis.js"
import { claudeEnv, homeEnv, type Pointed, type Ran, run } from "./run.js"

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
export const codex = (
  prompt: string,
  options: Pointed
): Promise<Ran> => {
  const codexHome = path.join(options.cwd, ".codex")
  fs.mkdirSync(codexHome, { recursive: true })
  return run(bin("codex"), [
    "exec",
    "--json",
    "--skip-git-repo-check",
    "-c",
    `openai_base_url="${options.baseUrl}"`,
    "-c",
    "check_for_update_on_startup=false",
    "-c",
    "analytics.enabled=false",
    "--sandbox",
    "danger-full-access",
    "-c",
    `approval_policy="never"`,
    "--",
    prompt
  ], {
    cwd: options.cwd,
    env: { ...homeEnv(options.cwd), CODEX_HOME: codexHome, OPENAI_API_KEY: options.key }
  })
}
