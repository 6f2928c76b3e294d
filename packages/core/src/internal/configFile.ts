import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as JSONSchema from "effect/JSONSchema"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import type * as Schema from "effect/Schema"
import * as ConfigFile from "../ConfigFile.js"
import { nearest } from "./nearest.js"
import * as SharedFile from "./sharedFile.js"

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

const patience = Duration.seconds(10)

/** @internal */
export const fileStore = (file: string) =>
  Effect.gen(function*() {
    const shared = yield* SharedFile.make(file, patience)
    const unwritable = (e: { readonly message: string }) => new ConfigFile.ConfigUnwritable({ file, reason: e.message })

    const read = Effect.gen(function*() {
      const known = yield* ConfigFile.KnownClis
      const content = yield* Effect.mapError(shared.text, (e) => new ConfigFile.ConfigUnreadable({ file, reason: e.message }))
      return Option.isNone(content) || content.value.trim() === ""
        ? ConfigFile.empty
        : yield* ConfigFile.decode(file, content.value, known)
    })

    return ConfigFile.Store.of({
      file: Option.some(file),
      read,
      modify: (change) =>
        Effect.gen(function*() {
          const known = yield* ConfigFile.KnownClis
          const next = yield* Either.flatMap(change(yield* read), (document) => ConfigFile.check(document, { known, file }))
          yield* Effect.mapError(shared.replace(ConfigFile.encode(next)), unwritable)
        }).pipe(
          shared.edit((problem) =>
            problem._tag === "Held"
              ? new ConfigFile.ConfigLocked({ file, holder: problem.holder })
              : unwritable({ message: problem.reason })
          )
        )
    })
  })
