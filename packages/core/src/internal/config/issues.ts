import type * as Schema from "effect/Schema"
import * as SchemaIssue from "effect/SchemaIssue"
import { echo, printable, unprintable } from "../echo.js"
import { nearest } from "../nearest.js"

const identifier = /^[A-Za-z_$][A-Za-z0-9_$]*$/

/**
 * A JSON path as people read it: `steps["claude@work/x"].retrying.policy`, `accounts.claude[0]`.
 *
 * @internal
 */
export const jsonPath = (path: ReadonlyArray<PropertyKey>): string =>
  path.length === 0 ? "the top" : path.map((key, i) =>
    typeof key === "number" ?
      `[${key}]` :
      typeof key === "string" && identifier.test(key) && key.length <= 60 ?
      `${i === 0 ? "" : "."}${key}` :
      `[${echo(String(key))}]`
  ).join("")

/** Deeper than any fallback config: a file nested further is refused before it is read. */
const deepest = 32

/**
 * What JSON.parse lets through silently and a fallback config must not hold: a key written twice
 * in one object (the parse keeps the last, the next write drops the other), a `__proto__` key,
 * a string with a control character in it, nesting deeper than a config ever is. The first found,
 * with where it is. `text` is JSON that parses.
 *
 * @internal
 */
export const hazard = (text: string): { readonly at: string; readonly expected: string } | undefined => {
  let i = 0
  const path: Array<string | number> = []
  const space = () => {
    while (i < text.length && (text[i] === " " || text[i] === "\t" || text[i] === "\n" || text[i] === "\r")) i++
  }
  const string = (): string => {
    const start = i++
    while (text[i] !== "\"") i += text[i] === "\\" ? 2 : 1
    i++
    return JSON.parse(text.slice(start, i)) as string
  }
  type Found = { readonly at: string; readonly expected: string }
  const found = (expected: string): Found => ({ at: jsonPath(path), expected })
  const control = (value: string) =>
    unprintable.test(value)
      ? found(`holds a control character (${echo(value.match(unprintable)![0])}); write it without one`)
      : undefined
  const value = (): Found | undefined => {
    space()
    if (path.length > deepest) return found(`nested deeper than ${deepest} levels, which no fallback config is`)
    const c = text[i]
    if (c === "{" || c === "[") {
      i++
      const keys = new Set<string>()
      for (let index = 0;; index++) {
        space()
        if (text[i] === "}" || text[i] === "]") {
          i++
          return undefined
        }
        if (text[i] === ",") {
          i++
          space()
        }
        if (c === "{") {
          const key = string()
          if (key === "__proto__") return found(`the key "__proto__" is not one a fallback config has`)
          if (keys.has(key)) return found(`the key ${echo(key)} is written twice; keep one`)
          keys.add(key)
          path.push(key)
          const bad = control(key)
          if (bad !== undefined) return bad
          space()
          i++ // the colon
        } else {
          path.push(index)
        }
        const bad = value()
        if (bad !== undefined) return bad
        path.pop()
      }
    }
    if (c === "\"") return control(string())
    while (i < text.length && !",]} \t\n\r".includes(text[i]!)) i++
    return undefined
  }
  return value()
}

const unexpected = "\u0000unexpected"

// A missing key is said as it always was ("is missing"), not in v4's words.
const formatter = SchemaIssue.makeFormatterStandardSchemaV1({
  leafHook: (issue) =>
    issue._tag === "UnexpectedKey"
      ? unexpected
      : issue._tag === "MissingKey"
      ? "is missing"
      : SchemaIssue.defaultLeafHook(issue)
})

/**
 * Each value a schema refused, with where it is; a key the file may not have gets "did you mean"
 * from the keys `keysAt` says the object there may have.
 *
 * @internal
 */
export const issuesOf = (
  error: Schema.SchemaError,
  keysAt: (path: ReadonlyArray<PropertyKey>) => ReadonlyArray<string> = () => []
) => {
  const issues = formatter(error.issue).issues.map((issue) => {
    const path = (issue.path ?? []).map((key) => typeof key === "object" ? key.key : key)
    const key = path.at(-1)
    const close = typeof key === "string" ? nearest(key, keysAt(path.slice(0, -1))) : []
    return {
      at: jsonPath(path),
      expected: issue.message === unexpected
        ? `this key is not one a fallback config has${close.length > 0 ? ` (did you mean ${close.join(" or ")}?)` : ""}`
        : issue.message
    }
  })
  return [issues[0]!, ...issues.slice(1)] as const
}

/**
 * What `JSON.parse` said, with the line and column of the position it names.
 *
 * @internal
 */
export const jsonReason = (error: unknown, text: string): string => {
  // Node 24 says "(line N column M)" itself; it is said once, as on every Node.
  const message = printable(firstLine(error instanceof Error ? error.message : String(error)))
    .replace(/ \(line \d+ column \d+\)/, "")
  const position = /position (\d+)/.exec(message)
  if (position === null) return message
  const before = text.slice(0, Number(position[1]))
  const line = before.split("\n").length
  const column = before.length - before.lastIndexOf("\n")
  return `${message}, line ${line} column ${column}`
}

/**
 * The first line of a text, cut to a readable length.
 *
 * @internal
 */
export const firstLine = (text: string, length = 200): string => {
  const line = text.split("\n")[0] ?? ""
  return line.length <= length ? line : `${line.slice(0, length)}…`
}
