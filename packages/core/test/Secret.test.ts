import { describe, expect, it } from "@effect/vitest"
import { Failure, Place, Secret } from "@fallback/core"
import * as ConfigFile from "@fallback/core/ConfigFile"
import { Either } from "effect"

const place = Either.getOrThrow(Place.parse("local/m"))
const told = (text: string) => new Failure.AuthRefused({ place, said: Failure.said(text) }).message

describe("Secret", () => {
  // issue 12 #1: shapes a provider may echo that were printed and stored as they came
  const shapes = [
    ["invalid key gsk_AbCdEfGh0123456789abcd", "gsk_AbCdEfGh0123456789abcd"],
    ["token hf_AbCdEfGh0123456789abcdXYZ refused", "hf_AbCdEfGh0123456789abcdXYZ"],
    ["nvapi-AbCdEfGh0123456789abcd-xyz is not valid", "AbCdEfGh0123456789abcd"],
    ["r8_AbCdEfGh0123456789abcd expired", "r8_AbCdEfGh0123456789abcd"],
    ["could not reach https://me:hunter2pass@example.com/v1", "hunter2pass"],
    ["GET /v1/models?key=plainvalue99 401", "plainvalue99"],
    ["missing or bad header x-api-key V3ryS3cretValue", "V3ryS3cretValue"],
    ["{\"error\":{\"authorization\":\"tok-abcdef123456\"}}", "tok-abcdef123456"]
  ] as const

  it.each(shapes)("masks %j", (text, secret) => {
    expect(Secret.mask(text)).not.toContain(secret)
    expect(told(text)).not.toContain(secret)
  })

  it("masks every value the process has read, whatever its shape, after it is held", () => {
    const custom = "corp.internal.Zq7-not-a-known-shape"
    expect(Secret.mask(`the key ${custom} is revoked`)).toContain(custom)
    Secret.hold(custom)
    expect(Secret.mask(`the key ${custom} is revoked`)).toBe("the key *** is revoked")
    expect(told(`echo: ${custom}${custom}`)).not.toContain(custom)
  })

  it("does not hold values so short that masking them would hide ordinary words", () => {
    Secret.hold("abc")
    expect(Secret.mask("abc def")).toBe("abc def")
  })

  it("holds what a provider may echo of a prompt: the prompt, its longer lines, key-looking words", () => {
    Secret.holdPrompt("summarise this for me please\nuse Xk29fQpL0aBcDeFgHiJkLmNoPqRsTuVw12 to log in")
    expect(Secret.mask("echo: summarise this for me please")).toBe("echo: ***")
    expect(Secret.mask("bad token Xk29fQpL0aBcDeFgHiJkLmNoPqRsTuVw12")).not.toContain("Xk29fQpL0a")
  })

  it("keeps what a backend said to a readable length", () => {
    expect(Failure.said("x".repeat(100_000)).length).toBeLessThan(2100)
  })

  // issue 12 #2: credentials written as literals where their names or shapes say they are secrets
  it.each([
    [{ accounts: { claude: [{ name: "a", env: { ANTHROPIC_API_KEY: "hunter2-prod-key" } }] } }, "ANTHROPIC_API_KEY"],
    [{ accounts: { claude: [{ name: "a", env: { MY_TOKEN: "plain" } }] } }, "MY_TOKEN"],
    [
      { accounts: { claude: [{ name: "a", env: { ANTHROPIC_BASE_URL: "https://u:pw123456@proxy.example" } }] } },
      "ANTHROPIC_BASE_URL"
    ],
    [{ providers: { local: { kind: "openai-compatible", baseUrl: "http://me:s3cretpw@127.0.0.1:1/v1" } } }, "baseUrl"]
  ])("refuses a literal credential %j", (document, at) => {
    const result = ConfigFile.decode("config.json", JSON.stringify(document), ConfigFile.builtinClis)
    const message = Either.flip(result).pipe(Either.getOrThrow).message
    expect(message).toContain(at)
    expect(message).toContain("fromEnv")
    expect(message).not.toMatch(/hunter2-prod-key|pw123456|s3cretpw/)
  })

  it("still takes plain settings under names that say nothing of secrets", () => {
    const document = {
      accounts: {
        claude: [{ name: "a", env: { ANTHROPIC_BASE_URL: "https://proxy.example/v1", KEYBOARD_LAYOUT: "us" } }]
      },
      providers: { local: { kind: "openai-compatible", baseUrl: "http://127.0.0.1:11434/v1" } }
    }
    expect(Either.isRight(ConfigFile.decode("config.json", JSON.stringify(document), ConfigFile.builtinClis))).toBe(
      true
    )
  })
})
