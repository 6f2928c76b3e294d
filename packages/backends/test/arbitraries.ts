/**
 * The few fast-check shapes the property tests of the HTTP providers were written with, built on
 * Effect 4's own `Arbitrary` (fast-check is no longer Effect's).
 */
import { Arbitrary, Schema } from "effect"

const arbitrary = <A>(schema: Schema.Schema<A>): Arbitrary.Arbitrary<A> => Arbitrary.schema(schema)

/** One of `values`. */
export const constantFrom = <const A extends ReadonlyArray<string | number>>(
  ...values: A
): Arbitrary.Arbitrary<A[number]> =>
  arbitrary(Schema.Literals(values as ReadonlyArray<string | number>) as unknown as Schema.Schema<A[number]>)

/** Any text. */
export const string = (): Arbitrary.Arbitrary<string> => arbitrary(Schema.String)

/** Text made of `unit`'s characters. */
export const stringOf = (unit: Arbitrary.Arbitrary<string>): Arbitrary.Arbitrary<string> =>
  Arbitrary.map(Arbitrary.array(unit), (parts) => parts.join(""))

/** An integer in [min, max]. */
export const integer = (range: { readonly min: number; readonly max: number }): Arbitrary.Arbitrary<number> =>
  arbitrary(Schema.Int.check(Schema.isBetween({ minimum: range.min, maximum: range.max })))

/** A natural number, as fast-check's `nat` (up to 2^31 - 1). */
export const nat = (): Arbitrary.Arbitrary<number> => integer({ min: 0, max: 0x7fffffff })

export const double = (): Arbitrary.Arbitrary<number> => arbitrary(Schema.Number)

export const bigInt = (): Arbitrary.Arbitrary<bigint> => arbitrary(Schema.BigInt)

export const boolean = (): Arbitrary.Arbitrary<boolean> => arbitrary(Schema.Boolean)

/** One of the arbitraries, each as likely. */
export const oneof = <A>(...choices: ReadonlyArray<Arbitrary.Arbitrary<A>>): Arbitrary.Arbitrary<A> =>
  Arbitrary.flatMap(integer({ min: 0, max: choices.length - 1 }), (at) => choices[at]!)

/** A value, or undefined. */
export const option = <A>(of: Arbitrary.Arbitrary<A>): Arbitrary.Arbitrary<A | undefined> =>
  Arbitrary.flatMap(boolean(), (some): Arbitrary.Arbitrary<A | undefined> => some ? of : Arbitrary.Constant(undefined))

/** A record of `key`s to `value`s, at least `minKeys` of them. */
export const dictionary = <K extends string, V>(
  key: Arbitrary.Arbitrary<K>,
  value: Arbitrary.Arbitrary<V>,
  options: { readonly minKeys: number }
): Arbitrary.Arbitrary<Record<K, V>> =>
  Arbitrary.map(
    Arbitrary.array(Arbitrary.all([key, value]), { minLength: options.minKeys }),
    (entries) => Object.fromEntries(entries) as Record<K, V>
  )
