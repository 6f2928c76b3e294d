import { describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import { ConfigFile } from "../src/index.js"

const decode = (health: unknown) => ConfigFile.decode("config.json", JSON.stringify({ health }), ConfigFile.builtinClis)

describe("the config file's health store", () => {
  it("chooses the file, or Redis by a URL from the environment or written plainly, with a password from the environment", () => {
    expect(Result.getOrThrow(decode({ store: "file" })).health).toEqual({ store: "file" })
    expect(Result.getOrThrow(decode({ store: "redis", url: { fromEnv: "FALLBACK_REDIS_URL" } })).health).toEqual({
      store: "redis",
      url: { fromEnv: "FALLBACK_REDIS_URL" }
    })
    const plain = {
      store: "redis",
      url: "rediss://cache.internal:6380/2",
      password: { fromEnv: "REDIS_PASSWORD" },
      prefix: "team-a:"
    }
    expect(Result.getOrThrow(decode(plain)).health).toEqual(plain)
    expect(Result.getOrThrow(decode(undefined)).health).toBeUndefined()
  })

  it("refuses a password written in the URL, and says where it goes instead", () => {
    const refused = decode({ store: "redis", url: "redis://:hunter2hunter2@cache.internal:6379" })
    expect(Result.isFailure(refused)).toBe(true)
    const message = Result.isFailure(refused) ? refused.failure.message : ""
    expect(message).toContain("\"password\": { \"fromEnv\"")
    expect(message).not.toContain("hunter2")
  })

  it("refuses a store it does not know, and a URL that is not Redis's", () => {
    expect(Result.isFailure(decode({ store: "memcached" }))).toBe(true)
    expect(Result.isFailure(decode({ store: "redis", url: "http://cache.internal" }))).toBe(true)
  })
})
