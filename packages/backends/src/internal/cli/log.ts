import * as fs from "node:fs"
import * as path from "node:path"

/**
 * Where a log folder's files stood when a run began: each file's size then.
 *
 * @internal
 */
export type Mark = ReadonlyMap<string, number>

const files = (folder: string): ReadonlyArray<string> => {
  try {
    return fs.readdirSync(folder, { recursive: true, encoding: "utf8" }).map((file) => path.join(folder, file))
      .filter((file) => fs.statSync(file).isFile())
  } catch {
    return []
  }
}

/** @internal */
export const mark = (folder: string): Mark => new Map(files(folder).map((file) => [file, fs.statSync(file).size]))

/**
 * What was written to a log folder since `from`: the new part of each file that grew, and every
 * new file, oldest first.
 *
 * @internal
 */
export const since = (folder: string, from: Mark): string =>
  files(folder)
    .map((file) => ({ file, at: fs.statSync(file).mtimeMs, size: fs.statSync(file).size }))
    .filter(({ file, size }) => size > (from.get(file) ?? 0))
    .sort((a, b) => a.at - b.at)
    .map(({ file }) => {
      const start = from.get(file) ?? 0
      const text = fs.readFileSync(file)
      return text.subarray(start).toString("utf8")
    })
    .join("\n")
