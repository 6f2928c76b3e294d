import { describe, expect, it } from "@effect/vitest"
import { ConfigFile } from "@fallback/core"
import { Duration, Result, Schema } from "effect"

describe("the config file's limits", () => {
  // 002: "AgentSendTimeoutSec | limits.agent_send_timeout_seconds in config.json, default 600".
  it("the send ceiling is read in seconds, and written back the same", () => {
    const decoded = Schema.decodeUnknownSync(ConfigFile.Document)({ limits: { send: 120 } })
    expect(decoded.limits?.send).toEqual(Duration.seconds(120))
    expect(Schema.encodeSync(ConfigFile.Document)(decoded).limits).toEqual({ send: 120 })
  })

  it("a negative ceiling is refused, saying what it must be", () => {
    const read = Schema.decodeUnknownResult(ConfigFile.Document)({ limits: { send: -1 } })
    expect(Result.isFailure(read)).toBe(true)
    expect(String(Result.isFailure(read) ? read.failure : "")).toContain("a number of seconds from 0 to")
  })
})
