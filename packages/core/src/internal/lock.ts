import type { PlatformError } from "@effect/platform/Error"
import type * as FileSystem from "@effect/platform/FileSystem"
import type * as Path from "@effect/platform/Path"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Random from "effect/Random"
import * as host from "./host.js"

/**
 * Why a lock was not had: another running process held it past the patience given (`holder`),
 * or the lock file itself could not be made (`reason`).
 *
 * @internal
 */
export type LockProblem =
  | { readonly _tag: "Held"; readonly holder: string }
  | { readonly _tag: "Failed"; readonly reason: string }

const holderOf = (content: string) => Number.parseInt(content.split(" ")[0] ?? "", 10)

/**
 * Runs `effect` while holding `<file>.lock`, a file created exclusively that names its holder's
 * process. A lock whose holder is no longer running (killed mid-write) is taken over: it is
 * renamed aside first, so of several processes that find it stale only one removes it.
 *
 * @internal
 */
export const withLock = <E2>(
  fs: FileSystem.FileSystem,
  path: Path.Path,
  file: string,
  patience: Duration.Duration,
  onProblem: (problem: LockProblem) => E2
) =>
<A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | E2, R> => {
  const lockFile = `${file}.lock`
  const readLock = fs.readFileString(lockFile).pipe(Effect.orElseSucceed(() => ""))
  // The token is written to a draft first and linked into place, so a lock file never exists
  // without the name of its holder, even when the holder is killed while taking it.
  const create = (token: string) =>
    Effect.gen(function*() {
      const draft = `${lockFile}.${token.replace(" ", ".")}.new`
      yield* fs.writeFileString(draft, token, { mode: 0o600 })
      const linked = yield* fs.link(draft, lockFile).pipe(
        Effect.as(true),
        Effect.catchIf((e) => e._tag === "SystemError" && e.reason === "AlreadyExists", () => Effect.succeed(false))
      )
      yield* fs.remove(draft).pipe(Effect.ignore)
      return linked
    })
  const takeOver = (seen: string, token: string) =>
    Effect.gen(function*() {
      const aside = `${lockFile}.${token.replace(" ", ".")}.stale`
      const moved = yield* fs.rename(lockFile, aside).pipe(Effect.as(true), Effect.orElseSucceed(() => false))
      if (!moved) return
      if ((yield* fs.readFileString(aside).pipe(Effect.orElseSucceed(() => ""))) !== seen) {
        yield* fs.link(aside, lockFile).pipe(Effect.ignore)
      }
      yield* fs.remove(aside).pipe(Effect.ignore)
    })
  const failed = (error: PlatformError) => onProblem({ _tag: "Failed", reason: error.message })
  const acquire = Effect.gen(function*() {
    const token = `${host.pid} ${(yield* Random.nextInt).toString(36)}`
    const giveUpAt = (yield* Clock.currentTimeMillis) + Duration.toMillis(patience)
    for (let tries = 0;; tries++) {
      const seen = yield* readLock
      if (seen === "" && (yield* Effect.mapError(create(token), failed))) {
        yield* sweep(fs, path, file)
        return token
      }
      if (seen !== "" && !host.isRunning(holderOf(seen))) {
        yield* takeOver(seen, token)
        continue
      }
      if ((yield* Clock.currentTimeMillis) > giveUpAt) {
        return yield* Effect.fail(onProblem({
          _tag: "Held",
          holder: seen === "" ? "another process" : `process ${holderOf(seen)}`
        }))
      }
      yield* Effect.sleep(Duration.millis(1 + (yield* Random.nextIntBetween(0, Math.min(2 ** tries, 25)))))
    }
  })
  const release = (token: string) =>
    Effect.flatMap(readLock, (content) => content === token ? fs.remove(lockFile).pipe(Effect.ignore) : Effect.void)
  return Effect.acquireUseRelease(acquire, () => effect, release)
}

const leftover = /^(?:\.(?<file>.+)\.(?<pid>\d+)\.[a-z0-9-]+\.tmp|(?<lock>.+)\.lock\.(?<holder>\d+)\.[a-z0-9-]+\.(?:new|stale))$/

/**
 * Removes what writers that are no longer running left beside the config file (killed between
 * two steps of a save): temporary copies of the file, drafts of the lock, locks set aside.
 *
 * @internal
 */
export const sweep = (fs: FileSystem.FileSystem, path: Path.Path, file: string) => {
  const base = path.basename(file)
  const dead = (name: string) => {
    const groups = leftover.exec(name)?.groups
    const writer = groups?.file === base ? groups.pid : groups?.lock === base ? groups.holder : undefined
    return writer !== undefined && !host.isRunning(Number(writer))
  }
  return fs.readDirectory(path.dirname(file)).pipe(
    Effect.flatMap((names) =>
      Effect.forEach(names.filter(dead), (name) => fs.remove(path.join(path.dirname(file), name)), { discard: true })
    ),
    Effect.ignore
  )
}
