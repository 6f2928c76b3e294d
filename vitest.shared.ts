import { defaultServerConditions } from "vite"
import { defineProject } from "vitest/config"

/** Settings every vitest project shares: run TypeScript sources through the source condition. */
export const project = (name: string, include: Array<string> = ["test/**/*.test.ts"]) =>
  defineProject({
    ssr: { resolve: { conditions: ["@fallback/source", ...defaultServerConditions] } },
    test: { name, include, testTimeout: 60_000 }
  })
