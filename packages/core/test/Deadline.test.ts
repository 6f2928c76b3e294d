import { describe, expect, it } from "@effect/vitest"
import { Clock, Duration, Effect, Exit, Fiber, Option } from "effect"
import { TestClock } from "effect/testing"
import { Deadline } from "../src/index.js"

const late = () => "late" as const

describe("Deadline", () => {
  it.effect("an effect that ends without waiting ends as it did, whatever the time", () =>
    Effect.gen(function*() {
      expect(yield* Deadline.cutAt(Effect.succeed(1), 0, late)).toBe(1)
      expect(yield* Effect.flip(Deadline.cutAt(Effect.fail("no" as const), 0, late))).toBe("no")
      expect(yield* Deadline.cutAt(Effect.succeed(2), Infinity, late)).toBe(2)
    }))

  it.effect("an effect still running at the time is interrupted and the cut fails with late()", () =>
    Effect.gen(function*() {
      let interrupted = false
      const slow = Effect.never.pipe(Effect.onInterrupt(() => Effect.sync(() => void (interrupted = true))))
      const fiber = yield* Effect.forkChild(Deadline.cutAfter(slow, "30 seconds", (after) => Duration.toMillis(after)))
      yield* TestClock.adjust("29999 millis")
      expect(fiber.pollUnsafe()).toBeUndefined()
      yield* TestClock.adjust("1 millis")
      expect(yield* Fiber.await(fiber)).toEqual(Exit.fail(30_000))
      expect(interrupted).toBe(true)
    }))

  it.effect("an answer that comes before the time wins, on the TestClock as on any Clock", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.forkChild(
        Deadline.cutAt(Effect.as(Effect.sleep("10 seconds"), "answer"), 30_000, late)
      )
      yield* TestClock.adjust("1 minute")
      expect(yield* Fiber.join(fiber)).toBe("answer")
    }))

  it.effect("what else falls due at the same instant comes first", () =>
    Effect.gen(function*() {
      const seen: Array<string> = []
      const cut = yield* Effect.forkChild(Deadline.cutAt(Effect.never, 10_000, () => {
        seen.push("cut")
        return "late" as const
      }))
      yield* TestClock.adjust("1 second")
      const other = yield* Effect.forkChild(
        Effect.andThen(Effect.sleep("9 seconds"), Effect.sync(() => void seen.push("other")))
      )
      yield* TestClock.adjust("9 seconds")
      yield* Fiber.await(other)
      expect(yield* Fiber.await(cut)).toEqual(Exit.fail("late"))
      expect(seen).toEqual(["other", "cut"])
    }))

  it.effect("joinBy gives the result, or none when the time comes first and leaves the fiber running", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.forkChild(Effect.as(Effect.sleep("1 minute"), "done"))
      const now = yield* Clock.currentTimeMillis
      const waited = yield* Effect.forkChild(Deadline.joinBy(fiber, now + 1_000))
      yield* TestClock.adjust("1 second")
      expect(yield* Fiber.join(waited)).toEqual(Option.none())
      expect(fiber.pollUnsafe()).toBeUndefined()
      const again = yield* Effect.forkChild(Deadline.joinBy(fiber, Infinity))
      yield* TestClock.adjust("1 minute")
      expect(yield* Fiber.join(again)).toEqual(Option.some("done"))
    }))

  it("timerAt takes a wait longer than a platform timer holds in steps, and cancel stops it", async () => {
    let now = 0
    let fired = 0
    const timer = Deadline.timerAt(Deadline.longestTimer * 2 + 5, () => void (fired += 1), () => now)
    await new Promise((resolve) => setTimeout(resolve, 5))
    expect(fired).toBe(0)
    timer.cancel()
    now = Deadline.longestTimer * 2 + 5
    const soon = Deadline.timerAt(now, () => void (fired += 1), () => now)
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(fired).toBe(1)
    soon.cancel()
    expect(Deadline.longestTimer).toBe(2 ** 31 - 1)
  })
})
