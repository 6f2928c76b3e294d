/**
 * `fallback status` reads the store the config file chooses: Redis, here a redis-server of the
 * test's own, reached by a URL from the environment.
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import { describe, expect, it } from "@effect/vitest"
import { Failure, Place } from "@fallback/core"
import { RedisHealth } from "@fallback/redis"
import { RedisServer } from "@fallback/testkit"
import { Effect, Option, Redacted } from "effect"
import * as FileSystem from "effect/FileSystem"
import { afterAll, beforeAll } from "vitest"

import { fallbackWith } from "./run.js"

let server: RedisServer.RedisServer

beforeAll(async () => {
  server = await RedisServer.start()
}, 60_000)

afterAll(() => server?.close())

const place = Place.Place.make({ cli: "claude", account: "work", model: "claude-opus-5" })

const configWith = (health: unknown) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const file = `${yield* fs.makeTempDirectoryScoped({ prefix: "fallback-cli-redis-" })}/config.json`
    yield* fs.writeFileString(file, JSON.stringify({ health }))
    return file
  }).pipe(Effect.provide(NodeFileSystem.layer))

describe("fallback status with health kept in Redis", () => {
  it.live("shows a breaker another process opened through Redis, and nothing of the URL's password", () =>
    Effect.gen(function*() {
      const file = yield* configWith({ store: "redis", url: { fromEnv: "TEAM_REDIS_URL" }, prefix: "team:" })
      const elsewhere = yield* RedisHealth.make({ url: Redacted.make(server.url), prefix: "team:" })
      const failure = new Failure.Unknown({ place, said: Failure.said("500") })
      for (let i = 0; i < 5; i++) yield* elsewhere.failed(place, { failure, counts: true, coolUntil: Option.none() })
      const shown = yield* fallbackWith({ TEAM_REDIS_URL: server.url }, file, "status", "--json")
      expect(shown.ok).toBe(true)
      expect(JSON.parse(shown.out)).toMatchObject([{
        place: "claude@work/claude-opus-5",
        breaker: "parked",
        failures: 5
      }])

      const down = yield* fallbackWith({ TEAM_REDIS_URL: "redis://:pa55word-of-the-team@127.0.0.1:1" }, file, "status")
      expect(down.ok).toBe(true)
      expect(down.err).toMatch(
        /^Redis at redis:\/\/127\.0\.0\.1:1 did not answer \(.+\); health is kept in this process until it does$/
      )
      expect(down.err + down.out).not.toContain("pa55word")
    }))

  it.effect("a variable the store's settings name that is not set is said, and nothing runs", () =>
    Effect.gen(function*() {
      const file = yield* configWith({ store: "redis", url: { fromEnv: "TEAM_REDIS_URL" } })
      const ran = yield* fallbackWith({}, file, "status")
      expect(ran.ok).toBe(false)
      expect(ran.err).toBe(
        "fallback: the URL of the health store is read from TEAM_REDIS_URL, which is not set; set it, or change \"health\" in the config file"
      )
    }))
})
