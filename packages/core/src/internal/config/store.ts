import * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Path from "effect/Path"
import * as Ref from "effect/Ref"
import * as Result from "effect/Result"
import * as Semaphore from "effect/Semaphore"
import type { Store } from "../../ConfigFile.js"
import * as SharedFile from "../store/sharedFile.js"
import { check, decode, encode } from "./document.js"
import { ConfigLocked, ConfigUnreadable, ConfigUnwritable } from "./errors.js"
import { firstLine } from "./issues.js"
import { builtinClis, type Document, empty } from "./schema.js"

/** @internal */
export const KnownClis = Context.Reference<ReadonlyArray<string>>("@fallback/core/ConfigFile/KnownClis", {
  defaultValue: () => builtinClis
})

/** @internal */
export const location = Effect.gen(function*() {
  const path = yield* Path.Path
  const explicit = yield* Config.option(Config.NonEmptyString("FALLBACK_CONFIG"))
  if (Option.isSome(explicit)) return path.resolve(explicit.value)
  const xdg = yield* Config.option(Config.NonEmptyString("XDG_CONFIG_HOME"))
  const base = Option.isSome(xdg) ? xdg.value : path.join(yield* Config.NonEmptyString("HOME"), ".config")
  return path.resolve(base, "fallback", "config.json")
})

const patience = Duration.seconds(10)

/**
 * A document kept in a file. A change is written only when its text reads back as the same
 * document: nothing is written that the next command would refuse.
 *
 * @internal
 */
export const file = (file: string) =>
  Effect.gen(function*() {
    const shared = yield* SharedFile.make(file, patience)
    const unwritable = (reason: string) => new ConfigUnwritable({ file, reason })

    const read = Effect.gen(function*() {
      const known = yield* KnownClis
      const content = yield* Effect.mapError(shared.text, (e) => new ConfigUnreadable({ file, reason: e.message }))
      return Option.isNone(content) || content.value.trim() === ""
        ? empty
        : yield* Effect.fromResult(decode(file, content.value, known))
    })

    const readsBack = (document: Document, known: ReadonlyArray<string>) =>
      Result.try({ try: () => encode(document), catch: (e) => e }).pipe(
        Result.filterOrFail((text) => Result.isSuccess(decode(file, text, known)), () => undefined),
        Result.mapError((e) =>
          unwritable(
            `the change would not read back (${
              e instanceof Error ? firstLine(e.message) : "it writes what the file refuses"
            })`
          )
        )
      )

    const service: Store.Service = {
      file: Option.some(file),
      read,
      modify: (change) =>
        Effect.gen(function*() {
          const known = yield* KnownClis
          const next = yield* Effect.fromResult(
            Result.flatMap(change(yield* read), (document) => check(document, { known, file }))
          )
          const text = yield* Effect.fromResult(readsBack(next, known))
          yield* Effect.mapError(shared.replace(text), (e) => unwritable(e.message))
        }).pipe(
          shared.edit((problem) =>
            problem._tag === "Held"
              ? new ConfigLocked({ file, holder: problem.holder })
              : unwritable(problem.reason)
          )
        )
    }
    return service
  })

/** @internal */
export const memory = (initial: Document) =>
  Effect.gen(function*() {
    const ref = yield* Ref.make(initial)
    const lock = yield* Semaphore.make(1)
    const service: Store.Service = {
      file: Option.none(),
      read: Ref.get(ref),
      modify: (change) =>
        lock.withPermits(1)(Effect.gen(function*() {
          const next = yield* Effect.fromResult(
            Result.flatMap(change(yield* Ref.get(ref)), (document) => check(document))
          )
          yield* Ref.set(ref, next)
        }))
    }
    return service
  })
