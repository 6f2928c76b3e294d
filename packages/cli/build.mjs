// Bundles the command line into one file with plain node: run by `npm ci` / `npm install`
// (the root's prepare script), so `npx fallback` works with no step of the user's own.
import { build } from "esbuild"

await build({
  entryPoints: [new URL("src/bin.ts", import.meta.url).pathname],
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  conditions: ["@fallback/source"],
  outfile: new URL("dist/fallback.mjs", import.meta.url).pathname,
  minify: true,
  legalComments: "none",
  banner: { js: "import { createRequire as __createRequire } from \"node:module\"; const require = __createRequire(import.meta.url);" },
  logLevel: "warning"
})
