import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import type * as Path from "effect/Path"
import type { PlatformError } from "effect/PlatformError"
import * as Random from "effect/Random"
import * as host from "../host.js"

/**
 * Why a lock was not had: another running process held it past the patience given (`holder`),
 * or the lock file itself could not be made (`reason`).
 *
 * @internal
 */
export type LockProblem =
  | { readonly _tag: "Held"; readonly holder: string }
  | { readonly _tag: "Failed"; readonly reason: string }

/** The process a lock's text names, or none when the text is not `PID TOKEN` (garbage: taken over). */
const holderOf = (content: string): number | undefined => {
  const written = /^(\d+) [a-z0-9-]+$/.exec(content)
  return written === null ? undefined : Number(written[1])
}

const stale = (content: string) => {
  const holder = holderOf(content)
  return holder === undefined || !host.isRunning(holder)
}

/** How many claims on claims a take-over follows, each one a writer killed while taking over. */
const deepestClaim = 4

/**
 * Runs `effect` while holding `<file>.lock`, a file created exclusively that names its holder's
 * process. A lock whose holder is no longer running (killed mid-write), or that holds no holder's
 * name, is taken over. Only the process that claims it (`<file>.lock.claim`, created exclusively)
 * may remove it, and only while it still holds what was seen, so no interleaving of writers lets
 * two in at once; a claim whose claimant died is taken over the same way.
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
  const read = (target: string) =>
    fs.readFileString(target).pipe(
      Effect.map((content): string | undefined => content),
      Effect.orElseSucceed(() => undefined)
    )
  // The token is written to a draft first and linked into place, so a lock file never exists
  // without the name of its holder, even when the holder is killed while taking it.
  const create = (target: string, token: string) =>
    Effect.gen(function*() {
      const draft = `${target}.${token.replace(" ", ".")}.new`
      yield* fs.writeFileString(draft, token, { mode: 0o600 })
      const linked = yield* fs.link(draft, target).pipe(
        Effect.as(true),
        Effect.catchIf((e) => e.reason._tag === "AlreadyExists", () => Effect.succeed(false))
      )
      yield* fs.remove(draft).pipe(Effect.ignore)
      return linked
    })
  const takeOver = (target: string, seen: string, token: string, depth: number): Effect.Effect<void, PlatformError> =>
    Effect.gen(function*() {
      const claim = `${target}.claim`
      if (!(yield* create(claim, token))) {
        const claimant = yield* read(claim)
        if (claimant !== undefined && depth < deepestClaim && stale(claimant)) {
          yield* takeOver(claim, claimant, token, depth + 1)
        }
        return
      }
      if ((yield* read(target)) === seen) yield* fs.remove(target).pipe(Effect.ignore)
      yield* fs.remove(claim).pipe(Effect.ignore)
    })
  const failed = (error: PlatformError) => onProblem({ _tag: "Failed", reason: error.message })
  const acquire = Effect.gen(function*() {
    const token = `${host.pid} ${(yield* Random.nextInt).toString(36)}`
    const giveUpAt = (yield* Clock.currentTimeMillis) + Duration.toMillis(patience)
    for (let tries = 0;; tries++) {
      const seen = yield* read(lockFile)
      if (seen === undefined) {
        if (yield* Effect.mapError(create(lockFile, token), failed)) {
          yield* sweep(fs, path, file)
          return token
        }
        continue
      }
      if (stale(seen)) {
        yield* Effect.mapError(takeOver(lockFile, seen, token, 0), failed)
        continue
      }
      if ((yield* Clock.currentTimeMillis) > giveUpAt) {
        return yield* Effect.fail(onProblem({ _tag: "Held", holder: `process ${holderOf(seen)}` }))
      }
      yield* Effect.sleep(Duration.millis(1 + (yield* Random.nextIntBetween(0, Math.min(2 ** tries, 50)))))
    }
  })
  const release = (token: string) =>
    Effect.flatMap(
      read(lockFile),
      (content) => content === token ? fs.remove(lockFile).pipe(Effect.ignore) : Effect.void
    )
  return Effect.acquireUseRelease(acquire, () => effect, release)
}

const leftover =
  /^(?:\.(?<file>.+)\.(?<pid>\d+)\.[a-z0-9-]+\.tmp|(?<lock>.+)\.lock(?:\.claim)*\.(?<holder>\d+)\.[a-z0-9-]+\.(?:new|stale))$/

/**
 * Removes what writers that are no longer running left beside the config file (killed between
 * two steps of a save): temporary copies of the file, drafts of the lock and of claims on it, and
 * claims on claims (a writer killed while taking over a claim). Run while holding the lock.
 *
 * @internal
 */
export const sweep = (fs: FileSystem.FileSystem, path: Path.Path, file: string) => {
  const base = path.basename(file)
  const folder = path.dirname(file)
  const dead = (name: string) => {
    const groups = leftover.exec(name)?.groups
    const writer = groups?.file === base ? groups.pid : groups?.lock === base ? groups.holder : undefined
    return writer !== undefined && !host.isRunning(Number(writer))
  }
  const isClaim = (name: string) =>
    name.startsWith(`${base}.lock.claim`) && /^(?:\.claim)+$/.test(name.slice(base.length + 5))
  const deadClaim = (name: string) =>
    Effect.map(fs.readFileString(path.join(folder, name)), (content) => {
      const holder = holderOf(content)
      return holder !== undefined && !host.isRunning(holder)
    }).pipe(Effect.orElseSucceed(() => false))
  return fs.readDirectory(folder).pipe(
    Effect.flatMap((names) =>
      Effect.forEach(
        names,
        (name) =>
          Effect.flatMap(
            dead(name) ? Effect.succeed(true) : isClaim(name) ? deadClaim(name) : Effect.succeed(false),
            (remove) => remove ? fs.remove(path.join(folder, name)) : Effect.void
          ),
        { discard: true }
      )
    ),
    Effect.ignore
  )
}
