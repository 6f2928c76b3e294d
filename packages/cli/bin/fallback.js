#!/usr/bin/env node
// The installed `fallback` command: the bundle that `npm ci` builds (packages/cli/build.mjs). A
// CommonJS script (bin/package.json says so), which node starts some 10 ms sooner than a module.
const { bundle, run } = require("./load.js")

try {
  run()
} catch (error) {
  if (error?.code !== "ENOENT" || error.path !== bundle) throw error
  process.stderr.write("fallback: the command is not built yet; run `npm run build --workspace @fallback/cli`\n")
  process.exitCode = 1
}
