import { defaultServerConditions } from "vite"
import { defineProject } from "vitest/config"

/** Settings every vitest project shares: run TypeScript sources through the source condition. */
export const project = (name: string, include: Array<string> = ["test/**/*.test.ts"]) =>
  defineProject({
    // not "module": a dependency Node loads itself must be a build Node runs (@opentelemetry/api's "module" is not)
    ssr: { resolve: { conditions: ["@fallback/source", ...defaultServerConditions.filter((c) => c !== "module")] } },
    test: { name, include, testTimeout: 60_000 }
  })
