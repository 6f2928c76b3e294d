import * as fs from "node:fs"
import * as path from "node:path"

const find = (root: string, mark: string): ReadonlyArray<string> => {
  try {
    return fs.readdirSync(root, { recursive: true, encoding: "utf8" }).filter((file) =>
      path.basename(file).includes(mark)
    )
  } catch {
    return []
  }
}

/**
 * Copies a session's files (those whose name holds `mark`, the id or the part of it the CLI puts
 * in its file names) from one account's sessions folder to another's, at the same place under it,
 * so the CLI resumes it there; files already there are kept.
 *
 * @internal
 */
export const carry = (mark: string, from: string, to: string): number => {
  let copied = 0
  for (const file of find(from, mark)) {
    const target = path.join(to, file)
    if (fs.existsSync(target)) continue
    fs.mkdirSync(path.dirname(target), { recursive: true })
    fs.copyFileSync(path.join(from, file), target)
    copied += 1
  }
  return copied
}
