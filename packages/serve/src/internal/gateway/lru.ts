import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Scope from "effect/Scope"

/** Every slot holds a value in use right now: nothing can be closed to make room. @internal */
export class Full extends Data.TaggedError("Full")<{ readonly capacity: number }> {}

interface Entry<A, E> {
  readonly key: string
  readonly deferred: Deferred.Deferred<A, E>
  readonly scope: Scope.Closeable
  users: number
  expiresAt: number
}

/**
 * A bounded cache of values made in scopes of their own, by key, the least recently used first:
 * a value is held while a scope uses it and for the idle time after (on the Clock); at capacity a
 * new key takes the slot of the least recently used value no scope uses right now (that value's
 * scope closed), and fails with {@link Full} only when every slot is in use.
 *
 * @internal
 */
export interface Lru<K, A, E> {
  readonly get: (key: K) => Effect.Effect<A, E | Full, Scope.Scope>
  /** The keys held, the least recently used first. */
  readonly keys: () => ReadonlyArray<string>
}

/** @internal */
export const make = <K, A, E>(options: {
  readonly lookup: (key: K) => Effect.Effect<A, E, Scope.Scope>
  readonly keyOf: (key: K) => string
  readonly capacity: number
  readonly idle: Duration.Input
}): Effect.Effect<Lru<K, A, E>, never, Scope.Scope> =>
  Effect.gen(function*() {
    const owner = yield* Scope.Scope
    const idle = Duration.toMillis(Duration.fromInputUnsafe(options.idle))
    const capacity = Math.max(1, options.capacity)
    // A Map iterates in insertion order: a key used is moved to the end, so the first is the least recent.
    const entries = new Map<string, Entry<A, E>>()
    let closed = false

    const close = (entry: Entry<A, E>): Effect.Effect<void> => Scope.close(entry.scope, Exit.void)

    // ONE fiber closes idle values as they expire, asleep until the soonest (none while none is idle):
    // a value falling idle only sets when it expires, no fiber of its own.
    let sweeping = false
    const sweep: Effect.Effect<void> = Effect.flatMap(Clock.currentTimeMillis, (now) => {
      let soonest = Infinity
      const expired: Array<Entry<A, E>> = []
      for (const entry of entries.values()) {
        if (entry.users > 0) continue
        if (entry.expiresAt <= now) expired.push(entry)
        else soonest = Math.min(soonest, entry.expiresAt)
      }
      for (const entry of expired) entries.delete(entry.key)
      const closing = Effect.forEach(expired, close, { discard: true })
      if (soonest === Infinity) {
        sweeping = false
        return closing
      }
      return Effect.andThen(closing, Effect.suspend(() => Effect.andThen(Effect.sleep(soonest - now), sweep)))
    })

    const held = (entry: Entry<A, E>) => !closed && entries.get(entry.key) === entry

    const release = (entry: Entry<A, E>): Effect.Effect<void> =>
      Effect.gen(function*() {
        entry.users--
        if (entry.users > 0) return
        if (!held(entry)) return yield* close(entry)
        entry.expiresAt = (yield* Clock.currentTimeMillis) + idle
        if (!sweeping) {
          sweeping = true
          yield* Effect.forkIn(sweep, owner)
        }
      })

    /** Makes room for one more: the least recently used entry no scope uses, closed. */
    const evict = (): Entry<A, E> | undefined => {
      for (const entry of entries.values()) {
        if (entry.users === 0) {
          entries.delete(entry.key)
          return entry
        }
      }
      return undefined
    }

    const get = (key: K): Effect.Effect<A, E | Full, Scope.Scope> =>
      Effect.uninterruptibleMask((restore) =>
        Effect.withFiber<A, E | Full, Scope.Scope>((fiber) => {
          if (closed) return Effect.interrupt
          const name = options.keyOf(key)
          let entry = entries.get(name)
          let evicted: Entry<A, E> | undefined
          if (entry !== undefined) {
            entries.delete(name)
            entries.set(name, entry)
            entry.users++
          } else {
            if (entries.size >= capacity) {
              evicted = evict()
              if (evicted === undefined) return Effect.fail(new Full({ capacity }))
            }
            const made: Entry<A, E> = {
              key: name,
              deferred: Deferred.makeUnsafe<A, E>(),
              scope: Scope.makeUnsafe(),
              users: 1,
              expiresAt: 0
            }
            entry = made
            entries.set(name, made)
            const context = Context.add(fiber.context, Scope.Scope, made.scope)
            const lookup = Effect.suspend(() => options.lookup(key)).pipe(
              Effect.runForkWith(context),
              Fiber.runIn(made.scope)
            )
            lookup.addObserver((exit) => {
              // A value that could not be made is not kept: the next get tries again.
              if (Exit.isFailure(exit) && entries.get(name) === made) entries.delete(name)
              Deferred.doneUnsafe(made.deferred, exit)
            })
          }
          const taken = entry
          return Effect.andThen(
            Effect.andThen(
              evicted === undefined ? Effect.void : close(evicted),
              Effect.flatMap(Effect.scope, (scope) => Scope.addFinalizer(scope, release(taken)))
            ),
            restore(Deferred.await(taken.deferred))
          )
        })
      )

    yield* Scope.addFinalizer(
      owner,
      Effect.suspend(() => {
        closed = true
        const all = [...entries.values()]
        entries.clear()
        return Effect.forEach(all, close, { discard: true })
      })
    )
    return { get, keys: () => [...entries.keys()] }
  })
