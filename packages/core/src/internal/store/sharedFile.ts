import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Option from "effect/Option"
import * as Path from "effect/Path"
import type { PlatformError } from "effect/PlatformError"
import * as Random from "effect/Random"
import * as Semaphore from "effect/Semaphore"
import * as host from "../host.js"
import { type LockProblem, withLock } from "./lock.js"

/**
 * A file several processes read and replace: read it (none when it is not there), replace it
 * atomically (a 0600 temporary file in the same folder, fsync'd when `durable`, renamed over it),
 * and edit it under its lock so no writer's change is lost. A file that is not `durable` (health:
 * what recent turns found, not a person's settings) is renamed into place without waiting for the
 * disk, so the lock is held for a read and a rename, not for two fsyncs.
 *
 * @internal
 */
export interface SharedFile {
  readonly text: Effect.Effect<Option.Option<string>, PlatformError>
  readonly replace: (text: string) => Effect.Effect<void, PlatformError>
  readonly edit: <E2>(
    onProblem: (problem: LockProblem) => E2
  ) => <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | E2, R>
}

/** @internal */
export const make = (file: string, patience: Duration.Duration, durable = true) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const inProcess = yield* Semaphore.make(1)
    const folder = path.dirname(file)

    const text = fs.readFileString(file).pipe(
      Effect.map(Option.some),
      Effect.catchIf(
        (e) => e.reason._tag === "NotFound",
        () => Effect.succeed(Option.none<string>())
      )
    )

    // A file that is a symbolic link is written through to what it links to: the link stays a link.
    const target: Effect.Effect<string> = fs.realPath(file).pipe(
      Effect.catch(() => Effect.map(fs.readLink(file), (linked) => path.resolve(folder, linked))),
      Effect.orElseSucceed(() => file)
    )

    const replace = (content: string) =>
      Effect.gen(function*() {
        const written = yield* target
        const into = path.dirname(written)
        const temporary = path.join(
          into,
          `.${path.basename(written)}.${host.pid}.${(yield* Random.nextInt).toString(36)}.tmp`
        )
        const synced = Effect.scoped(Effect.flatMap(fs.open(temporary, { flag: "r+" }), (handle) => handle.sync))
        yield* fs.writeFileString(temporary, content, { flag: "wx", mode: 0o600 }).pipe(
          Effect.andThen(durable ? synced : Effect.void),
          Effect.andThen(fs.rename(temporary, written)),
          Effect.tapError(() => fs.remove(temporary).pipe(Effect.ignore))
        )
        if (!durable) return
        yield* Effect.scoped(Effect.flatMap(fs.open(into, { flag: "r" }), (handle) => handle.sync)).pipe(Effect.ignore)
      })

    const edit = <E2>(onProblem: (problem: LockProblem) => E2) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      fs.makeDirectory(folder, { recursive: true, mode: 0o700 }).pipe(
        Effect.mapError((e) => onProblem({ _tag: "Failed", reason: e.message })),
        Effect.andThen(target),
        Effect.flatMap((written) => withLock(fs, path, written, patience, onProblem)(effect)),
        inProcess.withPermits(1)
      )

    return { text, replace, edit } satisfies SharedFile
  })
