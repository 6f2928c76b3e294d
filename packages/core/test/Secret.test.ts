import { describe, expect, it } from "@effect/vitest"
import { Failure, Place, Secret } from "@fallback/core"
import * as ConfigFile from "@fallback/core/ConfigFile"
import { Result } from "effect"
import * as fc from "./fixtures/arbitrary.js"

const place = Result.getOrThrow(Place.parse("local/m"))
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

  // issue 23: a held value is known, not guessed: masked whatever its length
  it.each(["abc", "x9Z_4", "Q7k"])("masks a held %j of three to five characters where it stands as a word", (key) => {
    Secret.hold(key)
    expect(Secret.mask(`invalid key ${key}`)).toBe("invalid key ***")
    expect(Secret.mask(`{"key":"${key}"}`)).toBe(`{"key":"***"}`)
    expect(Secret.mask(`x-api-key: ${key}\nnext`)).toBe("x-api-key: ***\nnext")
    // a word that merely holds it stays readable
    expect(Secret.mask(`zz${key}zz and ${key}9`)).toBe(`zz${key}zz and ${key}9`)
  })

  it.each(["k", "Q7", "1"])("masks a held %j of one or two characters where it is a whole value", (key) => {
    Secret.hold(key)
    expect(Secret.mask(key)).toBe("***")
    expect(Secret.mask(`{"key":"${key}","other":"${key}"}`)).toBe(`{"key":"***","other":"***"}`)
    expect(Secret.mask(`GET /v1?key=${key}&x=2 refused`)).toBe("GET /v1?key=***&x=2 refused")
    expect(Secret.mask(`key='${key}'`)).toBe("key='***'")
    // as a bare word or a JSON number it is left: masking it would hide ordinary words and break JSON
    expect(Secret.mask(`{"attempts":1,"text":"${key} is ok"}`)).toBe(`{"attempts":1,"text":"${key} is ok"}`)
  })

  it.prop("a held value of any length never shows where it stands alone", [
    fc.string({ unit: fc.constantFrom(..."abcXYZ019_-.+/=~!"), minLength: 1, maxLength: 40 })
  ], ([key]) => {
    if (key.trim() !== key) return
    Secret.hold(key)
    expect(Secret.mask(`the key "${key}" was refused`)).not.toContain(`"${key}"`)
    expect(Secret.mask(`key=${key}`)).not.toBe(`key=${key}`)
    expect(Secret.mask(key)).not.toBe(key)
  })

  it("masks a held key echoed in base64 or base64url, at any alignment inside a longer encoding", () => {
    const key = "canary-b64-Zq7é-Rr1?>>~~"
    Secret.hold(key)
    for (const before of ["", "u", "us", "user:"]) {
      const plain = Buffer.from(`${before}${key}:tail`)
      for (const encoded of [plain.toString("base64"), plain.toString("base64url")]) {
        const masked = Secret.mask(`echoed back as ${encoded} refused`)
        expect(Buffer.from(masked.replace(/^echoed back as |\*\*\*| refused$/g, ""), "base64").toString("latin1")).not
          .toContain(key.slice(2, -2))
        expect(masked).toContain("***")
      }
    }
  })

  it("a key first seen as a line of a prompt, then held as a key, is masked in base64 too", () => {
    const key = "PromptLineKey-7Hq2Vw9xZ3"
    Secret.holdPrompt(`please check\n${key}\nthanks`)
    Secret.hold(key)
    const echoed = Buffer.from(`user:${key}`).toString("base64")
    expect(Secret.mask(`the proxy echoed ${echoed} back`)).not.toContain(echoed.slice(8, 24))
  })

  it("a short held value that JSON writes bare (digits, true) is masked only as a whole value", () => {
    Secret.hold("4821")
    Secret.hold("true")
    expect(Secret.mask(`{"attempts":4821,"streamed":true}`)).toBe(`{"attempts":4821,"streamed":true}`)
    expect(Secret.mask(`{"key":"4821"}`)).toBe(`{"key":"***"}`)
    expect(Secret.mask("PIN=4821")).toBe("PIN=***")
  })

  it("masks a held key cut by a line break (\\n, \\r\\n, a wrapped and indented echo)", () => {
    const key = "canary-split-0123456789abcdef"
    Secret.hold(key)
    for (
      const text of [
        `bad key ${key.slice(0, 9)}\n${key.slice(9)} end`,
        `bad key ${key.slice(0, 4)}\r\n${key.slice(4, 20)}\r\n${key.slice(20)} end`,
        `bad key ${key.slice(0, 12)}\n    ${key.slice(12)} end`,
        // as a JSON body writes it
        `bad key ${key.slice(0, 7)}\\n${key.slice(7)} end`
      ]
    ) {
      const masked = Secret.mask(text)
      expect(masked).toBe("bad key *** end")
      expect(told(text)).not.toContain(key.slice(9))
    }
    expect(Secret.mask("line one\nline two")).toBe("line one\nline two")
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
    const message = Result.flip(result).pipe(Result.getOrThrow).message
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
    expect(Result.isSuccess(ConfigFile.decode("config.json", JSON.stringify(document), ConfigFile.builtinClis))).toBe(
      true
    )
  })
})
