import { describe, expect, it } from "@effect/vitest"
import { Console, Duration, Effect, Fiber, Stream } from "effect"
import { Answer, Failure, Notice, Place } from "../src/index.js"

const place = Place.Place.make({ cli: "claude", account: "work", model: "opus" })
const limited = new Failure.RateLimited({ place, said: Failure.said("429 sk-ant-api03-abcdefghijklmnopqrstuvwxyz") })
const remedy = Answer.remedy(Answer.primary.RateLimited)
const retrying = Notice.Notice.Retrying({
  place,
  failure: limited,
  wait: Duration.seconds(30),
  go: 1,
  of: 1,
  reopen: false,
  remedy
})
const moving = Notice.Notice.Moving({
  from: place,
  to: Place.Place.make({ cli: "claude", account: "home", model: "opus" }),
  failure: limited,
  by: "account",
  remedy
})

const stderr = (lines: Array<string>) =>
  Effect.provideService(Console.Console, {
    ...globalThis.console,
    error: (...args: ReadonlyArray<unknown>) => void lines.push(args.join(" "))
  } as never)

describe("Notice", () => {
  it("reads as the reference page's lines", () => {
    expect(Notice.format(retrying)).toBe(
      "claude@work is rate-limited; a wait, another account or another place is what answers it; trying again in 30s (1 of 1)"
    )
    expect(Notice.format(moving)).toBe(
      "claude@work is rate-limited; a wait, another account or another place is what answers it; carrying on as home"
    )
    expect(
      Notice.format(
        Notice.Notice.Moving({
          from: place,
          to: Place.Place.make({ cli: "codex", model: "gpt" }),
          failure: limited,
          by: "place"
        })
      )
    )
      .toMatch(/; carrying on at codex\/gpt$/)
  })

  it("never shows a secret the backend said", () => {
    const unknown = new Failure.Unknown({
      place,
      said: Failure.said("bad key sk-ant-api03-abcdefghijklmnopqrstuvwxyz")
    })
    const line = Notice.format(
      Notice.Notice.Stopping({ place, failure: unknown, reason: "no account or place is left to try" })
    )
    expect(line).not.toContain("abcdefghijklmnopqrstuvwxyz")
  })

  it.effect("with no layer, notices go to stderr", () =>
    Effect.gen(function*() {
      const lines: Array<string> = []
      yield* Effect.flatMap(Effect.service(Notice.Notices), (notices) => notices.publish(retrying)).pipe(stderr(lines))
      expect(lines).toEqual([Notice.format(retrying)])
    }))

  it.effect("with the layer, watchers get every notice in order and stderr gets none; with no watcher, stderr does", () =>
    Effect.gen(function*() {
      const notices = yield* Notice.Notices
      const lines: Array<string> = []
      yield* notices.publish(retrying).pipe(stderr(lines))
      expect(lines).toEqual([Notice.format(retrying)])
      const watched = yield* notices.watch
      const fiber = yield* Effect.forkChild(Stream.runCollect(Stream.take(watched, 2)))
      yield* Effect.all([notices.publish(retrying), notices.publish(moving)]).pipe(stderr(lines))
      expect(yield* Fiber.join(fiber)).toEqual([retrying, moving])
      expect(lines.length).toBe(1)
    }).pipe(Effect.provide(Notice.Notices.layer)))
})
