#!/usr/bin/env node
// The installed `fallback` command: the bundle that `npm ci` builds (packages/cli/build.mjs).
import("../dist/fallback.mjs").catch((error) => {
  if (error?.code !== "ERR_MODULE_NOT_FOUND" || !String(error.message).includes("fallback.mjs")) throw error
  process.stderr.write("fallback: the command is not built yet; run `npm run build --workspace @fallback/cli`\n")
  process.exitCode = 1
})
