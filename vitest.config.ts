import { defineConfig } from "vitest/config"
import { project } from "./vitest.shared.js"

export default defineConfig({
  test: {
    projects: [
      "packages/*/vitest.config.ts",
      { ...project("e2e", ["test/**/*.test.ts"]), test: { ...project("e2e", ["test/**/*.test.ts"]).test, globalSetup: ["test/setup.ts"] } }
    ]
  }
})
