/**
 * @since 0.1.0
 */

/**
 * Antigravity as a backend: run like the Gemini CLI, its log folder read for the HTTP status.
 *
 * @since 0.1.0
 */
export * as Antigravity from "./Antigravity.js"

/**
 * The Anthropic Messages provider: Claude over its HTTP API.
 *
 * @since 0.1.0
 */
export * as AnthropicMessages from "./AnthropicMessages.js"

/**
 * The models each agent CLI runs: a maintained list per CLI plus the config's own.
 *
 * @since 0.1.0
 */
export * as Catalogue from "./Catalogue.js"

/**
 * Claude Code as a backend: `claude -p` with stream-json output, one run per turn.
 *
 * @since 0.1.0
 */
export * as Claude from "./Claude.js"

/**
 * What each agent CLI is given to reach an endpoint the config names.
 *
 * @since 0.1.0
 */
export * as Endpoint from "./Endpoint.js"

/**
 * What every agent-CLI backend shares: finished runs, judged outcomes, options.
 *
 * @since 0.1.0
 */
export * as Cli from "./Cli.js"

/**
 * The Codex CLI as a backend: `codex exec --json`, one run per turn.
 *
 * @since 0.1.0
 */
export * as Codex from "./Codex.js"

/**
 * The Gemini CLI as a backend: `gemini -p` with stream-json output, one run per turn.
 *
 * @since 0.1.0
 */
export * as Gemini from "./Gemini.js"

/**
 * An HTTP provider: a backend that calls a model API, defined by kind, base URL, key and models.
 *
 * @since 0.1.0
 */
export * as HttpProvider from "./HttpProvider.js"

/**
 * The OpenAI-compatible provider: Chat Completions, also served by llama.cpp, vLLM and Ollama.
 *
 * @since 0.1.0
 */
export * as OpenAiCompatible from "./OpenAiCompatible.js"

/**
 * opencode as a backend: `opencode run --format json`, one run per turn.
 *
 * @since 0.1.0
 */
export * as OpenCode from "./OpenCode.js"
