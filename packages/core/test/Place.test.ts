import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, Equal, Result, Schema } from "effect"
import * as path from "node:path"
import { ConfigFile, Place } from "../src/index.js"

const oneOf = <A>(...arbitraries: ReadonlyArray<Arbitrary.Arbitrary<A>>): Arbitrary.Arbitrary<A> =>
  Arbitrary.flatMap(
    Arbitrary.schema(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: arbitraries.length - 1 }))),
    (i) => arbitraries[i]!
  )

const chars = (alphabet: string, min: number, max: number) =>
  Arbitrary.map(
    Arbitrary.array(Arbitrary.schema(Schema.Literals([...alphabet])), { minLength: min, maxLength: max }),
    (cs) => cs.join("")
  )

const orUndefined = <A>(arbitrary: Arbitrary.Arbitrary<A>) =>
  oneOf<A | undefined>(arbitrary, Arbitrary.Constant(undefined))

const lower = "abcdefghijklmnopqrstuvwxyz0123456789-"
const accountChars = lower + "ABCDEFGHIJKLMNOPQRSTUVWXYZ._"
const modelChars = accountChars + "/:@+"

const validPlace = Arbitrary.map(
  Arbitrary.all([
    chars(lower, 1, 12),
    orUndefined(
      Arbitrary.map(
        Arbitrary.all([chars(accountChars.replace(/[._-]/g, ""), 1, 1), chars(accountChars, 0, 11)]),
        ([a, b]) => a + b
      )
    ),
    // a model starting with "-" is refused: its CLI would read it as an option
    Arbitrary.filter(chars(modelChars, 1, 40), (model) => !model.startsWith("-"))
  ]),
  ([cli, account, model]) => account === undefined ? `${cli}/${model}` : `${cli}@${account}/${model}`
)

const parse = (input: string) => Result.getOrThrow(Place.parse(input))
const refusal = <A, E>(result: Result.Result<A, E>) => Result.getOrThrow(Result.flip(result))

describe("Place", () => {
  it("reads the three parts, the model keeping its own / and :", () => {
    const place = parse("opencode@work/anthropic/claude-sonnet-4-5")
    expect([place.cli, place.account, place.model]).toEqual(["opencode", "work", "anthropic/claude-sonnet-4-5"])
    const local = parse("ollama/qwen3:8b")
    expect([local.cli, local.account, local.model]).toEqual(["ollama", undefined, "qwen3:8b"])
  })

  it.prop("round-trips every valid place exactly", [validPlace], ([input]) => {
    const place = parse(input)
    expect(Place.format(place)).toBe(input)
    expect(String(place)).toBe(input)
    expect(Schema.encodeSync(Place.FromString)(Schema.decodeSync(Place.FromString)(input))).toBe(input)
  })

  it.prop("two places are equal exactly when cli, account and model are", [validPlace, validPlace], ([a, b]) => {
    expect(Equal.equals(parse(a), parse(b))).toBe(a === b)
    expect(Equal.equals(parse(a), parse(a))).toBe(true)
  })

  it("tells claude@work/x from claude@key/x and from claude/x", () => {
    const work = parse("claude@work/claude-opus-5")
    expect(Equal.equals(work, parse("claude@key/claude-opus-5"))).toBe(false)
    expect(Equal.equals(work, parse("claude/claude-opus-5"))).toBe(false)
  })

  const invalid: ReadonlyArray<readonly [string, string, string]> = [
    ["claude", "model", "\"claude\" is not a place: there is no \"/\" and so no model"],
    ["", "model", "\"\" is not a place: there is no \"/\" and so no model"],
    ["/claude-opus-5", "cli", "\"/claude-opus-5\" is not a place: the CLI is empty"],
    ["@work/claude-opus-5", "cli", "\"@work/claude-opus-5\" is not a place: the CLI is empty"],
    [
      "Claude/claude-opus-5",
      "cli",
      "\"Claude/claude-opus-5\" is not a place: the CLI \"Claude\" may hold only lowercase letters, digits and \"-\""
    ],
    [
      "my_cli/x",
      "cli",
      "\"my_cli/x\" is not a place: the CLI \"my_cli\" may hold only lowercase letters, digits and \"-\""
    ],
    ["claude@/x", "account", "\"claude@/x\" is not a place: the account after \"@\" is empty"],
    [
      "claude@my work/x",
      "account",
      "\"claude@my work/x\" is not a place: the account \"my work\" may hold only letters, digits, \".\", \"_\" and \"-\""
    ],
    [
      "claude@a@b/x",
      "account",
      "\"claude@a@b/x\" is not a place: the account \"a@b\" may hold only letters, digits, \".\", \"_\" and \"-\""
    ],
    // issue 23: an account names a folder, so it is never ".", "..", a hidden name or an option, nor endless
    [
      "claude@../x",
      "account",
      "\"claude@../x\" is not a place: the account \"..\" must start with a letter or a digit"
    ],
    ["claude@./x", "account", "\"claude@./x\" is not a place: the account \".\" must start with a letter or a digit"],
    [
      "claude@-rf/x",
      "account",
      "\"claude@-rf/x\" is not a place: the account \"-rf\" must start with a letter or a digit"
    ],
    ["claude@work/", "model", "\"claude@work/\" is not a place: the model after \"/\" is empty"],
    [
      "claude/claude opus",
      "model",
      "\"claude/claude opus\" is not a place: the model \"claude opus\" may not hold spaces"
    ]
  ]

  it.each(invalid)("refuses %j naming the %s part", (input, part, message) => {
    const invalidPlace = refusal(Place.parse(input))
    expect(invalidPlace._tag).toBe("InvalidPlace")
    expect(invalidPlace.part).toBe(part)
    expect(invalidPlace.message).toBe(`${message}; expected CLI[@ACCOUNT]/MODEL (e.g. claude@work/claude-opus-5)`)
  })

  it("refuses an account of 3,000 characters, saying how long it may be", () => {
    const invalidPlace = refusal(Place.parse(`claude@${"a".repeat(3000)}/x`))
    expect(invalidPlace.part).toBe("account")
    expect(invalidPlace.message).toBe(
      `${JSON.stringify(`claude@${"a".repeat(53)}…`)} is not a place: the account ${
        JSON.stringify(`${"a".repeat(60)}…`)
      } is 3000 characters long; an account is at most 64; expected ${Place.form}`
    )
  })

  it("fails a Schema decode with the same message", () => {
    const result = Schema.decodeUnknownResult(Place.FromString)("Claude/x")
    expect(Result.isFailure(result)).toBe(true)
    expect(String(refusal(result).message)).toContain(
      "the CLI \"Claude\" may hold only lowercase letters"
    )
  })

  // issue 23: an account's name becomes a folder's name
  it.prop("an account accepted, from any string, holds no separator and names a folder inside its parent", [
    oneOf(
      Arbitrary.schema(Schema.String.check(Schema.isMaxLength(80))),
      chars("./\\_-aZ09", 1, 70),
      Arbitrary.schema(Schema.Literals([".", ".."]))
    )
  ], ([written]) => {
    const parent = path.resolve("/accounts")
    const safe = (account: string) => {
      expect(account).not.toMatch(/[/\\\u0000]/)
      expect(account.length).toBeLessThanOrEqual(64)
      expect(path.dirname(path.resolve(parent, account))).toBe(parent)
    }
    if (Result.isSuccess(Schema.decodeUnknownResult(Place.Account)(written))) safe(written)
    const place = Place.parse(`claude@${written}/m`)
    if (Result.isSuccess(place)) safe(place.success.account!)
  })

  it("refuses the same names in the config file, with the same words", () => {
    for (const name of ["..", ".", "a".repeat(3000)]) {
      const result = ConfigFile.decode(
        "config.json",
        JSON.stringify({ accounts: { claude: [{ name }] } }),
        ConfigFile.builtinClis
      )
      const message = refusal(result).message
      expect(message).toMatch(/must start with a letter or a digit|an account is at most 64/)
    }
  })
})
