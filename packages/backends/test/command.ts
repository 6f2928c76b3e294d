/**
 * The command's bundle (`packages/cli/dist/fallback.cjs`, built by `npm run build --workspace
 * @fallback/cli`) run as a user runs it, against a provider of the tests' own.
 */
import { execFile } from "node:child_process"
import { existsSync, mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"

const bundle = join(import.meta.dirname, "../../cli/dist/fallback.cjs")

/** What one run printed and how it ended: its exit status, stdout's JSON lines, stderr. */
export interface Ran {
  readonly code: number | null
  readonly lines: ReadonlyArray<Record<string, unknown>>
  readonly stderr: string
}

/**
 * `fallback run --json --attempts 1 local/MODEL hi`, its config (an OpenAI-compatible provider
 * `local` at `url`) and health in `folder`, made for it.
 */
export const runOnce = (folder: string, url: string, model: string): Promise<Ran> => {
  if (!existsSync(bundle)) throw new Error("the command is not built: run `npm run build --workspace @fallback/cli`")
  mkdirSync(folder, { recursive: true })
  const config = { providers: { local: { kind: "openai-compatible", baseUrl: `${url}/v1` } } }
  writeFileSync(join(folder, "config.json"), JSON.stringify(config))
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [bundle, "run", "--json", "--attempts", "1", `local/${model}`, "hi"],
      { env: { PATH: process.env.PATH ?? "", HOME: folder, FALLBACK_CONFIG: join(folder, "config.json") } },
      (error, stdout, stderr) => {
        const text = stdout.trim()
        resolve({
          code: error === null ? 0 : (error.code as number | null),
          lines: text === "" ? [] : text.split("\n").map((line) => JSON.parse(line)),
          stderr
        })
      }
    )
  })
}
