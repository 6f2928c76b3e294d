import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import { TestClock } from "effect/testing"

import * as Lru from "../../src/internal/gateway/lru.js"

/** A cache whose values are their keys, each noting when it is made and when its scope closes. */
const cache = (capacity: number) =>
  Effect.gen(function*() {
    const made: Array<string> = []
    const closed: Array<string> = []
    const lru = yield* Lru.make({
      lookup: (key: string) =>
        Effect.as(
          Effect.andThen(
            Effect.sync(() => void made.push(key)),
            Effect.addFinalizer(() => Effect.sync(() => void closed.push(key)))
          ),
          key
        ),
      keyOf: (key) => key,
      capacity,
      idle: "1 hour"
    })
    /** Uses a key for one request: borrowed and given back. */
    const use = (key: string) => Effect.scoped(lru.get(key))
    /** Holds a key as a request still answering does, until the scope it returns is closed. */
    const hold = (key: string) =>
      Effect.gen(function*() {
        const scope = yield* Scope.make()
        yield* lru.get(key).pipe(Scope.provide(scope))
        return scope
      })
    return { closed, hold, lru, made, use }
  })

describe("Lru: the conversations a gateway keeps", () => {
  it.effect("at capacity, the least recently used idle value is closed and the new one takes its slot", () =>
    Effect.gen(function*() {
      const { closed, lru, made, use } = yield* cache(2)
      yield* use("a")
      yield* use("b")
      yield* use("a") // a is now the more recent
      yield* use("c")
      expect(closed).toEqual(["b"])
      expect(lru.keys()).toEqual(["a", "c"])
      yield* use("a")
      expect(made).toEqual(["a", "b", "c"]) // a kept: made once
    }).pipe(Effect.scoped))

  it.effect("a value in use is never closed to make room; the least recent idle one is", () =>
    Effect.gen(function*() {
      const { closed, hold, lru, use } = yield* cache(2)
      const a = yield* hold("a")
      yield* use("b")
      yield* use("c")
      expect(closed).toEqual(["b"])
      expect(lru.keys()).toEqual(["a", "c"])
      yield* Scope.close(a, Exit.void)
      expect(closed).toEqual(["b"]) // idle now, still kept
    }).pipe(Effect.scoped))

  it.effect("only when every slot is in use is a new key refused (Full)", () =>
    Effect.gen(function*() {
      const { closed, hold, lru } = yield* cache(2)
      yield* hold("a")
      yield* hold("b")
      const refused = yield* Effect.flip(Effect.scoped(lru.get("c")))
      expect(refused).toBeInstanceOf(Lru.Full)
      expect(closed).toEqual([])
      expect(lru.keys()).toEqual(["a", "b"])
    }).pipe(Effect.scoped))

  it.effect("an idle value expires after the idle time, on the Clock; a use before then keeps it", () =>
    Effect.gen(function*() {
      const { closed, lru, made, use } = yield* cache(10)
      yield* use("a")
      yield* TestClock.adjust("59 minutes")
      yield* use("a")
      yield* TestClock.adjust("59 minutes")
      expect(closed).toEqual([])
      yield* TestClock.adjust("2 minutes")
      expect(closed).toEqual(["a"])
      expect(lru.keys()).toEqual([])
      yield* use("a")
      expect(made).toEqual(["a", "a"])
    }).pipe(Effect.scoped))

  it.effect("a value that could not be made is not kept: the next use tries again", () =>
    Effect.gen(function*() {
      let tries = 0
      const lru = yield* Lru.make({
        lookup: (_: string) => Effect.suspend(() => ++tries === 1 ? Effect.fail("no") : Effect.succeed(tries)),
        keyOf: (key) => key,
        capacity: 1,
        idle: "1 hour"
      })
      expect(yield* Effect.flip(Effect.scoped(lru.get("a")))).toBe("no")
      expect(yield* Effect.scoped(lru.get("a"))).toBe(2)
      expect(yield* Effect.scoped(lru.get("a"))).toBe(2)
    }).pipe(Effect.scoped))

  it.effect("closing the cache closes every value", () =>
    Effect.gen(function*() {
      const outer = yield* Scope.make()
      const { closed, use } = yield* cache(3).pipe(Scope.provide(outer))
      yield* use("a")
      yield* use("b")
      yield* Scope.close(outer, Exit.void)
      expect(closed.sort()).toEqual(["a", "b"])
    }))
})
