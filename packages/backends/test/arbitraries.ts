/**
 * The inputs the property tests draw from, on Effect 4's own `effect/Arbitrary` (v3's FastCheck
 * helpers written with it): any text, any JSON value as one line, a choice of several, text that
 * matches a pattern.
 */
import * as Arbitrary from "effect/Arbitrary"
import * as Schema from "effect/Schema"

/** Any string. */
export const text: Arbitrary.Arbitrary<string> = Arbitrary.schema(Schema.String)

/** Any JSON value, written as JSON. */
export const json: Arbitrary.Arbitrary<string> = Arbitrary.map(
  Arbitrary.schema(Schema.Json),
  (value) => JSON.stringify(value)
)

/** One of the given arbitraries, each as likely. */
export const oneOf = <A>(...choices: ReadonlyArray<Arbitrary.Arbitrary<A>>): Arbitrary.Arbitrary<A> =>
  Arbitrary.flatMap(
    Arbitrary.schema(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: choices.length - 1 }))),
    (index) => choices[index]!
  )

/** A string matching `pattern`. */
export const matching = (pattern: RegExp): Arbitrary.Arbitrary<string> =>
  Arbitrary.schema(Schema.String.check(Schema.isPattern(pattern)))

/** Lines of a CLI's stream: any text, any JSON, and the given lines. */
export const streamLines = (...known: ReadonlyArray<string>): Arbitrary.Arbitrary<Array<string>> =>
  Arbitrary.array(oneOf(text, json, ...known.map((line) => Arbitrary.Constant(line))))

/** An exit status, or none (the process was signalled). */
export const exitStatus: Arbitrary.Arbitrary<number | null> = Arbitrary.schema(
  Schema.NullOr(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 255 })))
)
