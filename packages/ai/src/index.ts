/**
 * @since 0.1.0
 */
export * as AiFailure from "./AiFailure.js"

/**
 * @since 0.1.0
 */
export * as AiPlace from "./AiPlace.js"

/**
 * @since 0.1.0
 */
export * as AnthropicLanguageModel from "./AnthropicLanguageModel.js"

/**
 * @since 0.1.0
 */
export * as FallbackAi from "./FallbackAi.js"

/**
 * @since 0.1.0
 */
export * as OpenAiLanguageModel from "./OpenAiLanguageModel.js"

/**
 * @since 1.1.0
 */
export * as Generation from "./Generation.js"
