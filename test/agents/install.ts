/**
 * Installs the pinned agent CLIs into the cache folder, unless they are already there at those
 * versions, and an install of claude and opencode whose postinstall did not run (npm's stubs),
 * and says how long each took.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { cache, pinned, stubs } from "./clis.js"

const installed = (folder: string, npm: string): string | undefined => {
  try {
    return JSON.parse(fs.readFileSync(path.join(folder, "node_modules", npm, "package.json"), "utf8")).version
  } catch {
    return undefined
  }
}

const install = (folder: string, packages: ReadonlyArray<(typeof pinned)[number]>, flags: ReadonlyArray<string>) => {
  if (packages.every((cli) => installed(folder, cli.npm) === cli.version)) {
    process.stdout.write(`${packages.map((cli) => cli.npm).join(", ")} already in ${folder}\n`)
    return
  }
  fs.mkdirSync(folder, { recursive: true })
  fs.writeFileSync(
    path.join(folder, "package.json"),
    JSON.stringify({ name: "fallback-agent-clis", private: true }) + "\n"
  )
  const started = Date.now()
  execFileSync("npm", [
    "install",
    "--no-save",
    "--no-audit",
    "--no-fund",
    ...flags,
    ...packages.map((cli) => `${cli.npm}@${cli.version}`)
  ], {
    cwd: folder,
    stdio: "inherit"
  })
  process.stdout.write(
    `installed ${packages.map((cli) => cli.npm).join(", ")} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`
  )
}

install(cache, pinned, [])
install(stubs, pinned.filter((cli) => cli.cli === "claude" || cli.cli === "opencode"), [
  "--ignore-scripts",
  "--omit=optional"
])
