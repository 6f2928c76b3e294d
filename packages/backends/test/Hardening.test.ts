/**
 * Backends that hung a turn, kept unbounded output or ran the CLI somewhere else (issue 12 #12–#14).
 */
import { ConfigFile, Secret } from "@fallback/core"
import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { environment } from "../src/internal/environment.js"

const cli = { passes: ["ANTHROPIC_API_KEY"], quiet: {}, home: (dir: string) => ({ CLAUDE_CONFIG_DIR: dir }) }

describe("an account's environment", () => {
  it("expands ~ in configDir as doctor does (#14)", () => {
    const account = new ConfigFile.Account({ name: "work", configDir: "~/.claude-work" })
    const env = Either.getOrThrow(environment({ HOME: "/home/u" }, Option.some(account), cli, {}))
    expect(env.CLAUDE_CONFIG_DIR).toBe("/home/u/.claude-work")
    expect(ConfigFile.expandHome("~", "/home/u")).toBe("/home/u")
    expect(ConfigFile.expandHome("~other/x", "/home/u")).toBe("~other/x")
  })

  it("holds every value it reads for a key, so no message shows it (#1)", () => {
    const account = new ConfigFile.Account({ name: "work", env: { ANTHROPIC_API_KEY: { fromEnv: "WORK_KEY" } } })
    environment({ WORK_KEY: "plain-looking-value-42" }, Option.some(account), cli, {})
    environment({ ANTHROPIC_API_KEY: "another-plain-value-43" }, Option.none(), cli, {})
    expect(Secret.mask("got plain-looking-value-42 and another-plain-value-43")).toBe("got *** and ***")
  })
})
