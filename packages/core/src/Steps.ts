/**
 * What is written against a place: where its turns go next, and how it tries again first. The
 * same steps a script writes are the ones the command line reads back, and the other way round.
 * `Steps.layerFile(file)` keeps them in the config file at `file`, `Steps.layerMemory` in memory.
 *
 * @example
 * ```ts
 * import { NodeServices } from "@effect/platform-node"
 * import { Steps } from "@fallback/core"
 * import { Effect } from "effect"
 *
 * const chain = Effect.gen(function*() {
 *   const steps = yield* Steps.Steps
 *   yield* steps.points("claude@work/claude-opus-5", "codex@key/gpt-5.6-sol")
 *   return yield* steps.chain("claude@work/claude-opus-5")
 * }).pipe(
 *   Effect.provide(Steps.Steps.layerFile("/home/me/.config/fallback/config.json")),
 *   Effect.provide(NodeServices.layer)
 * )
 * ```
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Path from "effect/Path"
import * as Result from "effect/Result"
import * as ConfigFile from "./ConfigFile.js"
import * as internal from "./internal/steps.js"
import * as Place from "./Place.js"
import * as Policy from "./Policy.js"

/**
 * One step: the place it is written against, where its turns go (if anywhere), and how it tries
 * again first (if at all).
 *
 * @since 0.1.0
 * @category models
 */
export interface Step {
  readonly place: Place.Place
  readonly to: Option.Option<Place.Place>
  readonly retrying: Option.Option<Policy.Retrying>
}

/**
 * A place, or its written form.
 *
 * @since 0.1.0
 * @category models
 */
export type PlaceInput = Place.Place | string

/**
 * What writing or reading steps can fail with.
 *
 * @since 0.1.0
 * @category errors
 */
export type StepsError = Place.InvalidPlace | Policy.InvalidRetrying | ConfigFile.ConfigFileError

/**
 * What the {@link Steps} service does: read and write the steps.
 *
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** Sends the turns of `from` to `to` next, keeping any retrying already written on `from`. */
  readonly points: (from: PlaceInput, to: PlaceInput) => Effect.Effect<void, StepsError>
  /** Writes how `place` tries again: `tries` beyond the first, the policy's waits, within `timeout`. */
  readonly retrying: (
    place: PlaceInput,
    tries: number,
    policy?: Policy.Name,
    timeout?: Duration.Duration
  ) => Effect.Effect<void, StepsError>
  /** Every step, ordered by the written place. */
  readonly all: Effect.Effect<ReadonlyArray<Step>, StepsError>
  /** The step written against a place, if one is. */
  readonly get: (place: PlaceInput) => Effect.Effect<Option.Option<Step>, StepsError>
  /** Removes what is written against a place. */
  readonly clear: (place: PlaceInput) => Effect.Effect<void, StepsError>
  /** The whole walk from a place: itself first, then each `to`, ending at the second sight of a place. */
  readonly chain: (place: PlaceInput) => Effect.Effect<ReadonlyArray<Place.Place>, StepsError>
}

/**
 * The steps, read and written (the reference page's `fallbacks`).
 *
 * @since 0.1.0
 * @category services
 */
export class Steps extends Context.Service<Steps, Service>()("@fallback/core/Steps") {
  /**
   * Steps kept in a {@link ConfigFile.Store}: the file's when the store is the file's.
   *
   * @since 0.1.0
   */
  static readonly layer: Layer.Layer<Steps, never, ConfigFile.Store> = Layer.effect(
    Steps,
    Effect.map(Effect.service(ConfigFile.Store), (store) => make(store))
  )

  /**
   * Steps kept in the config file at `file`.
   *
   * @since 0.1.0
   */
  static readonly layerFile = (file: string): Layer.Layer<Steps, never, FileSystem.FileSystem | Path.Path> =>
    Steps.layer.pipe(Layer.provide(ConfigFile.Store.layerFile(file)))

  /**
   * Steps held in memory, starting empty.
   *
   * @since 0.1.0
   */
  static readonly layerMemory: Layer.Layer<Steps> = Steps.layer.pipe(Layer.provide(ConfigFile.Store.layerMemory()))
}

const placeOf = (input: PlaceInput): Effect.Effect<Place.Place, Place.InvalidPlace> =>
  typeof input === "string" ? Effect.fromResult(Place.parse(input)) : Effect.succeed(input)

const stepOf = (entry: { readonly place: Place.Place } & internal.Entry): Step => ({
  place: entry.place,
  to: Option.fromNullishOr(entry.to),
  retrying: Option.fromNullishOr(entry.retrying)
})

const make = (store: ConfigFile.Store.Service): Service => {
  // A document read is immutable: its places are parsed once, not on every turn that walks a chain.
  const books = new WeakMap<ConfigFile.Document, internal.Book>()
  const bookOf = (document: ConfigFile.Document) => {
    let found = books.get(document)
    if (found === undefined) books.set(document, found = ConfigFile.bookOf(document))
    return found
  }
  const edit = (change: (book: internal.Book) => Result.Result<internal.Book, ConfigFile.ConfigFileError>) =>
    store.modify((document) => Result.map(change(bookOf(document)), (book) => ConfigFile.withBook(document, book)))
  const book = Effect.map(store.read, bookOf)
  return Steps.of({
    points: Effect.fn("Steps.points")(function*(from, to) {
      const [a, b] = [yield* placeOf(from), yield* placeOf(to)]
      yield* edit((book) => Result.mapError(internal.points(book, a, b), () => new ConfigFile.SelfStep({ place: a })))
    }),
    retrying: Effect.fn("Steps.retrying")(function*(place, tries, policy = Policy.defaultName, timeout) {
      const at = yield* placeOf(place)
      const value = yield* Effect.fromResult(Policy.retrying(tries, policy, timeout))
      yield* edit((book) => Result.succeed(internal.retrying(book, at, value)))
    }),
    all: Effect.map(
      book,
      (book) => [...book.values()].sort((a, b) => String(a.place) < String(b.place) ? -1 : 1).map(stepOf)
    ).pipe(
      Effect.withSpan("Steps.all")
    ),
    // `get` and `chain` are read on turns that fail over, so they are not traced: a span and the
    // stack an Effect.fn captures cost more than the read.
    get: (place) =>
      Effect.flatMap(
        placeOf(place),
        (at) => Effect.map(book, (book) => Option.map(Option.fromNullishOr(book.get(String(at))), stepOf))
      ),
    clear: Effect.fn("Steps.clear")(function*(place) {
      const at = yield* placeOf(place)
      yield* edit((book) => Result.succeed(internal.clear(book, at)))
    }),
    chain: (place) => Effect.flatMap(placeOf(place), (at) => Effect.map(book, (book) => internal.walk(book, at)))
  })
}
