/**
 * What a CLI may print, for the property tests of the CLI backends' readers: any text, any JSON
 * value as one line, known lines among them; an exit status or none; text matching a pattern.
 */
import * as Arbitrary from "effect/Arbitrary"
import * as Schema from "effect/Schema"
import { integer, oneof, string } from "./arbitraries.js"

/** Any string. */
export const text: Arbitrary.Arbitrary<string> = string()

/** Any JSON value, written as JSON. */
export const json: Arbitrary.Arbitrary<string> = Arbitrary.map(
  Arbitrary.schema(Schema.Json),
  (value) => JSON.stringify(value)
)

/** A string matching `pattern`. */
export const matching = (pattern: RegExp): Arbitrary.Arbitrary<string> =>
  Arbitrary.schema(Schema.String.check(Schema.isPattern(pattern)))

/** Lines of a CLI's stream: any text, any JSON, and the given lines. */
export const streamLines = (...known: ReadonlyArray<string>): Arbitrary.Arbitrary<Array<string>> =>
  Arbitrary.array(oneof(text, json, ...known.map((line) => Arbitrary.Constant(line))))

/** An exit status, or none (the process was signalled). */
export const exitStatus: Arbitrary.Arbitrary<number | null> = oneof<number | null>(
  integer({ min: 0, max: 255 }),
  Arbitrary.Constant(null)
)
