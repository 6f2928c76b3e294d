import * as fs from "node:fs"
import * as path from "node:path"

const find = (root: string, id: string): ReadonlyArray<string> => {
  try {
    return fs.readdirSync(root, { recursive: true, encoding: "utf8" }).filter((file) =>
      path.basename(file).includes(id)
    )
  } catch {
    return []
  }
}

/**
 * Copies a session's files from one account's sessions folder to another's, at the same place
 * under it, so the CLI resumes it there; files already there are kept.
 *
 * @internal
 */
export const carry = (id: string, from: string, to: string): number => {
  let copied = 0
  for (const file of find(from, id)) {
    const target = path.join(to, file)
    if (fs.existsSync(target)) continue
    fs.mkdirSync(path.dirname(target), { recursive: true })
    fs.copyFileSync(path.join(from, file), target)
    copied += 1
  }
  return copied
}
