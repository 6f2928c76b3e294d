import * as ConfigFile from "@fallback/core/ConfigFile"

// What `fallback demo` and `fallback serve --demo` both play on the loopback mock

/**
 * The anthropic provider's two accounts, `work` and `spare`, their keys from variables only the demo sets.
 *
 * @internal
 */
export const accounts: ConfigFile.Document["accounts"] = {
  anthropic: [
    new ConfigFile.Account({ name: "work", env: { ANTHROPIC_API_KEY: { fromEnv: "DEMO_KEY_WORK" } } }),
    new ConfigFile.Account({ name: "spare", env: { ANTHROPIC_API_KEY: { fromEnv: "DEMO_KEY_SPARE" } } })
  ]
}

/**
 * The Anthropic Messages and OpenAI-compatible providers on the mock at `url`, one model each.
 *
 * @internal
 */
export const providers = (
  url: string,
  models: { readonly anthropic: string; readonly openai: string }
): ConfigFile.Document["providers"] => ({
  anthropic: {
    kind: "anthropic-messages",
    baseUrl: url,
    key: { fromEnv: "ANTHROPIC_API_KEY" },
    models: [{ name: models.anthropic }]
  },
  openai: {
    kind: "openai-compatible",
    baseUrl: `${url}/v1`,
    key: { fromEnv: "OPENAI_API_KEY" },
    models: [{ name: models.openai }]
  }
})

/**
 * Keys for the mock only: they name the fault each account plays.
 *
 * @internal
 */
export const keys = {
  DEMO_KEY_WORK: "demo-key-work",
  DEMO_KEY_SPARE: "demo-key-spare",
  OPENAI_API_KEY: "demo-key-openai"
}
