// Bundles the benchmarks with esbuild, as a user's build would ship the library: run under tsx,
// every arrow function our sources hand over as an option gets tsx's keep-names helper, which costs
// about as much per turn as the engine's whole happy path. The bundle sits beside the sources, so
// the paths the benches resolve from their own folder hold. `node bench/build.mjs profile-http`
// bundles `bench/profile-http.ts` instead of `bench/main.ts`.
import { build } from "esbuild"

const entry = process.argv[2] ?? "main"

await build({
  entryPoints: [new URL(`${entry}.ts`, import.meta.url).pathname],
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node22",
  conditions: ["@fallback/source"],
  // B7 bundles the other process it starts, at run time
  external: ["esbuild"],
  outfile: new URL(`${entry}.bundle.mjs`, import.meta.url).pathname,
  banner: {
    js:
      "import { createRequire as __createRequire } from \"node:module\"; const require = __createRequire(import.meta.url);"
  },
  logLevel: "warning"
})
