/**
 * Where a turn runs: `CLI[@ACCOUNT]/MODEL`, e.g. `claude@work/claude-opus-5`.
 *
 * The first `/` ends the CLI part; everything after it is the model, which may itself hold `/`
 * and `:` (`opencode@work/anthropic/claude-sonnet-4-5`, `ollama/qwen3:8b`). The account is
 * optional, and `claude@work/x` and `claude@key/x` are two places.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as SchemaGetter from "effect/SchemaGetter"
import * as SchemaIssue from "effect/SchemaIssue"
import { echo } from "./internal/echo.js"
import * as internal from "./internal/place.js"

/**
 * The form every place takes, shown in errors.
 *
 * @since 0.1.0
 * @category constants
 */
export const form = "CLI[@ACCOUNT]/MODEL (e.g. claude@work/claude-opus-5)"

/**
 * The shape of a written place, for editors and JSON Schema; {@link parse} says which part is wrong.
 *
 * @since 0.1.0
 * @category constants
 */
export const pattern =
  /^[a-z0-9-]+(@[A-Za-z0-9][A-Za-z0-9._-]{0,63})?\/[^-\s\u0000-\u001f\u007f-\u009f][^\s\u0000-\u001f\u007f-\u009f]*$/

/**
 * The CLI part: lowercase letters, digits and `-`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Cli = Schema.String.check(
  Schema.isPattern(internal.cliPattern, {
    message: "a CLI holds only lowercase letters, digits and \"-\"",
    toJsonSchema: () => ({ pattern: internal.cliPattern.source })
  })
)

/**
 * The account part, which names folders and files: it starts with a letter or a digit and holds
 * up to 64 letters, digits, `.`, `_` and `-` (so never `.`, `..` or a path separator).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Account = Schema.String.check(
  Schema.makeFilter(
    (account: string) =>
      internal.accountPattern.test(account) ||
      (internal.accountProblem(account) ??
        "an account starts with a letter or a digit and holds up to 64 letters, digits, \".\", \"_\" and \"-\""),
    { toJsonSchema: () => ({ pattern: internal.accountPattern.source }) }
  )
)

/**
 * The model part: anything without spaces or control characters that does not start with `-`
 * (a CLI would read it as an option), `/` and `:` included.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Model = Schema.String.check(
  Schema.isPattern(internal.modelPattern, {
    message: "a model is not empty, does not start with \"-\" and holds no spaces or control characters",
    toJsonSchema: () => ({ pattern: internal.modelPattern.source })
  })
)

/**
 * A place. Two places are equal (`Equal.equals`) when their cli, account and model are.
 *
 * @since 0.1.0
 * @category models
 */
export class Place extends Schema.Class<Place>("@fallback/core/Place")({
  cli: Cli,
  account: Schema.optional(Account),
  model: Model
}) {
  /** The place written as `CLI[@ACCOUNT]/MODEL`. */
  override toString(): string {
    return internal.join(this)
  }
}

/**
 * A string that is not a place. The message names the wrong part, quotes the input and shows the
 * expected form.
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidPlace extends Schema.TaggedError<InvalidPlace>("@fallback/core/InvalidPlace")("InvalidPlace", {
  input: Schema.String,
  part: Schema.Literals(["cli", "account", "model"]),
  reason: Schema.String
}) {
  override get message(): string {
    return `${echo(this.input)} is not a place: ${this.reason}; expected ${form}`
  }
}

/**
 * Reads `CLI[@ACCOUNT]/MODEL`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const parse = (input: string): Result.Result<Place, InvalidPlace> =>
  Result.mapBoth(internal.split(input), {
    onSuccess: (parts) => new Place(parts.account === undefined ? { cli: parts.cli, model: parts.model } : parts),
    onFailure: (problem) => new InvalidPlace({ input, ...problem })
  })

/**
 * Writes a place as `CLI[@ACCOUNT]/MODEL`; `format(parse(s))` is `s` for every valid `s`.
 *
 * @since 0.1.0
 * @category utils
 */
export const format = (place: Place): string => {
  let written = formatted.get(place)
  if (written === undefined) formatted.set(place, written = internal.join(place))
  return written
}

/** A place is immutable, so it is written once: a place used as a key on every turn costs no new string. */
const formatted = new WeakMap<Place, string>()

/**
 * A place in its written form, decoded into a {@link Place} and encoded back exactly.
 *
 * @since 0.1.0
 * @category schemas
 */
export const FromString: Schema.Codec<Place, string> = Schema.String.annotate({
  message: `a place, written ${form}`,
  description: `a place, written ${form}`
}).check(Schema.makeFilter(() => true, { toJsonSchema: () => ({ pattern: pattern.source }) })).pipe(
  Schema.decodeTo(Schema.instanceOf(Place), {
    decode: SchemaGetter.transformEffect((input: string) =>
      Result.match(parse(input), {
        onSuccess: Effect.succeed,
        onFailure: (error) => Effect.fail(new SchemaIssue.InvalidValue({ message: error.message }, input))
      })
    ),
    encode: SchemaGetter.transform(format)
  })
).annotate({ identifier: "Place", description: `a place, written ${form}` })
