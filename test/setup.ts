// The end-to-end tests run the bin, which runs the bundle `npm ci` built: build it again, once for
// every test file, so they see this tree's code (two files building at once would race on it).
import { execFileSync } from "node:child_process"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

export default function setup() {
  execFileSync(process.execPath, [join(fileURLToPath(new URL("..", import.meta.url)), "packages", "cli", "build.mjs")])
}
