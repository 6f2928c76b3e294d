/**
 * @since 0.1.0
 */

/**
 * The Anthropic Messages provider: Claude over its HTTP API.
 *
 * @since 0.1.0
 */
export * as AnthropicMessages from "./AnthropicMessages.js"

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
