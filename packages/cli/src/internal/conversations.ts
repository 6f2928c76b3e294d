import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Path from "effect/Path"
import * as Schema from "effect/Schema"

import { besideConfig } from "./config.js"

/**
 * Where the last turn that started at a place was answered and in which conversation, so
 * `fallback run PLACE --continue` picks it up there.
 *
 * @internal
 */
export const Conversation = Schema.Struct({ at: Schema.String, session: Schema.String })

/** @internal */
export type Conversation = typeof Conversation.Type

const Book = Schema.fromJsonString(Schema.Record(Schema.String, Conversation))

/**
 * `--continue` found no conversation to continue.
 *
 * @internal
 */
export class NothingToContinue extends Schema.TaggedError<NothingToContinue>("@fallback/cli/NothingToContinue")(
  "NothingToContinue",
  { place: Schema.String }
) {
  override get message(): string {
    return `no earlier turn from ${this.place} started a conversation to continue; run it without --continue, or name one with --session ID`
  }
}

const file = besideConfig("conversations.json")

const read = (at: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    return yield* fs.readFileString(at).pipe(
      Effect.flatMap(Schema.decodeUnknownEffect(Book)),
      Effect.orElseSucceed((): Record<string, Conversation> => ({}))
    )
  })

/**
 * The conversation the last turn from `place` ended in.
 *
 * @internal
 */
export const last = (place: string) =>
  Effect.gen(function*() {
    const book = yield* read(yield* file)
    const found = book[place]
    if (found === undefined) return yield* new NothingToContinue({ place })
    return found
  })

/**
 * Notes where a turn from `place` was answered; written whole to a new file and moved into place,
 * so a reader never sees half of it. A file that cannot be written costs only `--continue`.
 *
 * @internal
 */
export const note = (place: string, conversation: Conversation) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const at = yield* file
    const book = { ...yield* read(at), [place]: conversation }
    const temporary = `${at}.${process.pid}.tmp`
    yield* fs.makeDirectory((yield* Path.Path).dirname(at), { recursive: true })
    yield* fs.writeFileString(temporary, JSON.stringify(book, null, 2) + "\n")
    yield* fs.rename(temporary, at)
  }).pipe(Effect.ignore)
