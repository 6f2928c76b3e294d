import { defaultServerConditions } from "vite"
import { defineConfig } from "vitest/config"

/** The agents suite: the real CLIs from the cache folder against the mock provider. */
export default defineConfig({
  ssr: { resolve: { conditions: ["@fallback/source", ...defaultServerConditions] } },
  test: {
    name: "agents",
    root: import.meta.dirname,
    include: ["*.agents.ts"],
    maxConcurrency: 8,
    testTimeout: 300_000,
    hookTimeout: 300_000
  }
})
