import { defineConfig } from "vitest/config"
import { project } from "./vitest.shared.js"

const e2e = project("e2e", ["test/**/*.test.ts"])

export default defineConfig({
  test: {
    projects: [
      "packages/*/vitest.config.ts",
      // the bin's bundle is built once, before any end-to-end file runs it
      { ...e2e, test: { ...e2e.test, globalSetup: ["test/support/bin.ts"] } }
    ]
  }
})
