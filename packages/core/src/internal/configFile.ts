import * as JSONSchema from "effect/JSONSchema"
import * as ParseResult from "effect/ParseResult"
import type * as Schema from "effect/Schema"
import { nearest } from "./nearest.js"

const identifier = /^[A-Za-z_$][A-Za-z0-9_$]*$/

/**
 * A JSON path as people read it: `steps["claude@work/x"].retrying.policy`, `accounts.claude[0]`.
 *
 * @internal
 */
export const jsonPath = (path: ReadonlyArray<PropertyKey>): string =>
  path.length === 0 ? "the top" : path.map((key, i) =>
    typeof key === "number" ? `[${key}]` :
      typeof key === "string" && identifier.test(key) ? `${i === 0 ? "" : "."}${key}` :
      `[${JSON.stringify(String(key))}]`
  ).join("")

/** @internal */
export const issuesOf = (
  error: ParseResult.ParseError,
  keysAt: (path: ReadonlyArray<PropertyKey>) => ReadonlyArray<string> = () => []
) => {
  const issues = ParseResult.ArrayFormatter.formatErrorSync(error).map((issue) => {
    const key = issue.path.at(-1)
    const close = typeof key === "string" ? nearest(key, keysAt(issue.path.slice(0, -1))) : []
    return {
      at: jsonPath(issue.path),
      expected: issue._tag === "Unexpected"
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
  const message = error instanceof Error ? error.message : String(error)
  const position = /position (\d+)/.exec(message)
  if (position === null) return message
  const before = text.slice(0, Number(position[1]))
  const line = before.split("\n").length
  const column = before.length - before.lastIndexOf("\n")
  return `${message}, line ${line} column ${column}`
}

/** @internal */
export const jsonSchemaOf = <A, I>(schema: Schema.Schema<A, I>) => JSONSchema.make(schema)

/**
 * The first line of a text, cut to a readable length.
 *
 * @internal
 */
export const firstLine = (text: string, length = 200): string => {
  const line = text.split("\n")[0] ?? ""
  return line.length <= length ? line : `${line.slice(0, length)}…`
}
