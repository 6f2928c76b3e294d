/**
 * The config file: the steps and the accounts, as JSON a person can read and edit, at
 * `--config` / `FALLBACK_CONFIG`, else `$XDG_CONFIG_HOME/fallback/config.json`
 * (`~/.config/fallback/config.json`).
 *
 * It never holds a secret: an account's environment names the variable a key is read from
 * (`{ "fromEnv": "ANTHROPIC_KEY_WORK" }`). Writes are atomic and locked, so several processes
 * can edit one file without losing a step, and a file that does not read is never overwritten.
 * What the file holds is modelled by modules of their own: `Account`, `Provider`.
 *
 * @since 0.1.0
 */
import type * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import type * as Option from "effect/Option"
import type * as Path from "effect/Path"
import type * as Result from "effect/Result"
import * as document from "./internal/config/document.js"
import * as errors from "./internal/config/errors.js"
import * as schema from "./internal/config/schema.js"
import * as store from "./internal/config/store.js"
import type { Book } from "./internal/steps.js"

/**
 * The CLIs fallback drives out of the box.
 *
 * @since 0.1.0
 * @category constants
 */
export const builtinClis: ReadonlyArray<string> = schema.builtinClis

/**
 * The CLIs a config may name: the built-in ones unless a program says otherwise (a test double, an
 * HTTP provider of its own).
 *
 * @since 0.1.0
 * @category getters
 */
export const KnownClis: Context.Reference<ReadonlyArray<string>> = store.KnownClis

export {
  /**
   * An account of a CLI; the same as `Account.Account`.
   *
   * @since 0.1.0
   * @category schemas
   */
  Account,
  /**
   * Where a CLI sends its requests; the same as `Account.Endpoint`.
   *
   * @since 0.1.0
   * @category schemas
   */
  Endpoint,
  /**
   * A value read from the user's environment; the same as `Account.FromEnv`.
   *
   * @since 0.1.0
   * @category schemas
   */
  FromEnv,
  /**
   * A plain value that is not a secret; the same as `Account.Setting`.
   *
   * @since 0.1.0
   * @category schemas
   */
  Setting
} from "./Account.js"

export {
  /**
   * A provider's headers; the same as `Provider.Headers`.
   *
   * @since 0.1.0
   * @category schemas
   */
  Headers,
  /**
   * An HTTP provider; the same as `Provider.Provider`.
   *
   * @since 0.1.0
   * @category schemas
   */
  Provider,
  /**
   * A provider's own limits; the same as `Provider.Timeouts`.
   *
   * @since 0.1.0
   * @category schemas
   */
  Timeouts
} from "./Provider.js"

/**
 * How a CLI is run: `bin`, the binary to run when it is not the one on `PATH`; `endpoint`, where every
 * account of it without one of its own sends its requests; `models`, models it runs that fallback's
 * catalogue of it does not list yet.
 *
 * @since 0.1.0
 * @category schemas
 */
export const CliSettings: typeof schema.CliSettings = schema.CliSettings

/**
 * What is written against one place in the file.
 *
 * @since 0.1.0
 * @category schemas
 */
export const StepEntry: typeof schema.StepEntry = schema.StepEntry

/**
 * Where the health of places (breakers, cooldowns) is kept: `file`, beside this file (the
 * default), shared by the processes of one machine; or `redis`, shared by every process on every
 * machine using the same Redis and `prefix`. The URL, and any password, may come from the
 * environment; a password is never written here.
 *
 * @since 0.1.0
 * @category schemas
 */
export const HealthStore: typeof schema.HealthStore = schema.HealthStore

/**
 * What one failure kind gets, over the preset's answer for it: `waits` before each go again here
 * (seconds), `atLeast` the shortest wait, whether the step's own tries apply (`step`), whether the
 * session is reopened (`reopen`), whether other accounts and places are walked, the `cooldown`
 * (seconds) the place gets, and `once` for a kind taken only once.
 *
 * @since 0.1.0
 * @category schemas
 */
export const AnswerSettings: typeof schema.AnswerSettings = schema.AnswerSettings

/**
 * How `fallback run` recovers when its flags do not say: the preset, the first-byte, idle and
 * deadline limits (seconds; a first byte of 0 is no limit), the most goes in all, the breaker's
 * numbers (failures in a row, seconds parked) and the answer to each failure kind.
 *
 * @since 0.1.0
 * @category schemas
 */
export const RunSettings: typeof schema.RunSettings = schema.RunSettings

/**
 * Model names clients send, each mapped to the place it is sent to: `fallback serve` answers a
 * request for `claude-sonnet-4-5` at `anthropic/claude-sonnet-4-5` when the file says
 * `"aliases": { "claude-sonnet-4-5": "anthropic/claude-sonnet-4-5" }`. Each value is a place
 * (`PROVIDER/MODEL`, or `CLI[@ACCOUNT]/MODEL`), kept as written; one that is not is refused with
 * the form it should take, and one whose provider or account the file does not know is refused
 * as a step's would be.
 *
 * @since 1.1.0
 * @category schemas
 */
export const Aliases: typeof schema.Aliases = schema.Aliases

/**
 * The limits on a turn a file sets for every agent the command makes: `send`, the ceiling on one
 * attempt in seconds (the escalating preset's 600 s when not said).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Limits: typeof schema.Limits = schema.Limits

/**
 * The whole file.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Document: typeof schema.Document = schema.Document

/**
 * @since 0.1.0
 * @category models
 */
export type Document = schema.Document

/**
 * A file with nothing in it yet.
 *
 * @since 0.1.0
 * @category constants
 */
export const empty: Document = schema.empty

/**
 * One value of the config file that is not what was expected, and where it is.
 *
 * @since 0.1.0
 * @category models
 */
export const Issue: typeof errors.Issue = errors.Issue

export {
  /**
   * The config file is JSON but holds something it should not: each bad value with its JSON path.
   *
   * @since 0.1.0
   * @category errors
   */
  ConfigInvalid,
  /**
   * Another process held the config file's lock for too long.
   *
   * @since 0.1.0
   * @category errors
   */
  ConfigLocked,
  /**
   * The config file is not JSON. It is left as it is.
   *
   * @since 0.1.0
   * @category errors
   */
  ConfigNotJson,
  /**
   * The config file could not be read (no permission, not a file).
   *
   * @since 0.1.0
   * @category errors
   */
  ConfigUnreadable,
  /**
   * The config file could not be written. The file is as it was.
   *
   * @since 0.1.0
   * @category errors
   */
  ConfigUnwritable,
  /**
   * A provider named like a CLI fallback drives: places could not tell the two apart.
   *
   * @since 0.1.0
   * @category errors
   */
  ProviderShadowsCli,
  /**
   * A place that falls back to itself.
   *
   * @since 0.1.0
   * @category errors
   */
  SelfStep,
  /**
   * A place whose account is not set up for its CLI.
   *
   * @since 0.1.0
   * @category errors
   */
  UnknownAccount,
  /**
   * A place whose CLI fallback does not know.
   *
   * @since 0.1.0
   * @category errors
   */
  UnknownCli
} from "./internal/config/errors.js"

/**
 * Everything reading or writing the config can fail with.
 *
 * @since 0.1.0
 * @category errors
 */
export type ConfigFileError = errors.ConfigFileError

/**
 * Whether a document knows a place: its CLI is one of the `known` CLIs or a provider the document
 * defines, and its account (if it names one) is set up for that CLI. The one rule `fallback point`
 * writes by and `fallback run` starts by.
 *
 * @since 0.1.0
 * @category guards
 */
export const checkPlace: typeof document.checkPlace = document.checkPlace

/**
 * The places a document names that it should not: a self-step always; with the CLIs that are
 * `known`, also a place whose CLI is not one of them or whose account is not set up. The first
 * one found, places in order.
 *
 * @since 0.1.0
 * @category guards
 */
export const check: typeof document.check = document.check

/**
 * The steps of a document, keyed by the written place and in the order of the written places.
 *
 * @since 0.1.0
 * @category combinators
 */
export const bookOf: (document: Document) => Book = document.bookOf

/**
 * A document with its steps replaced by a book's, written in the order of the places.
 *
 * @since 0.1.0
 * @category combinators
 */
export const withBook: (document: Document, book: Book) => Document = document.withBook

/**
 * Reads a file's text as a document: JSON first, then the schema (unknown keys refused), then the
 * places it names.
 *
 * @since 0.1.0
 * @category constructors
 */
export const decode: typeof document.decode = document.decode

/**
 * A document as the text written to the file (the providers and clis sections only when they
 * hold something).
 *
 * @since 0.1.0
 * @category utils
 */
export const encode: (document: Document) => string = document.encode

/**
 * Where the config file is: `FALLBACK_CONFIG`, else `$XDG_CONFIG_HOME/fallback/config.json`,
 * else `$HOME/.config/fallback/config.json`.
 *
 * @since 0.1.0
 * @category getters
 */
export const location: Effect.Effect<string, Config.ConfigError, Path.Path> = store.location

/**
 * Where the document lives: read it, or change it in one read-modify-write that no other writer
 * interleaves with.
 *
 * @since 0.1.0
 * @category services
 */
export class Store extends Context.Service<Store, Store.Service>()("@fallback/core/ConfigFile/Store") {
  /**
   * A document held in memory, starting from `initial` (empty by default). A program names its own
   * CLIs and accounts, so only self-steps are refused here; files are checked in full.
   *
   * @since 0.1.0
   */
  static readonly layerMemory = (initial: Document = empty): Layer.Layer<Store> =>
    Layer.effect(Store, store.memory(initial))

  /**
   * The document in a file: created 0600 on first write, replaced atomically, edited under a lock.
   *
   * @since 0.1.0
   */
  static readonly layerFile = (file: string): Layer.Layer<Store, never, FileSystem.FileSystem | Path.Path> =>
    Layer.effect(Store, store.file(file))

  /**
   * The document in the file {@link location} names.
   *
   * @since 0.1.0
   */
  static readonly layerDefault: Layer.Layer<Store, Config.ConfigError, FileSystem.FileSystem | Path.Path> = Layer
    .unwrap(Effect.map(location, Store.layerFile))
}

/**
 * @since 0.1.0
 * @category services
 */
export declare namespace Store {
  /**
   * What a {@link Store} does.
   *
   * @since 0.1.0
   * @category models
   */
  export interface Service {
    /** The file the store writes, if it is one. */
    readonly file: Option.Option<string>
    /** The document as it is now. */
    readonly read: Effect.Effect<Document, ConfigFileError>
    /** Applies a change to the document as it is now, and keeps the result if it checks. */
    readonly modify: <E>(
      change: (document: Document) => Result.Result<Document, E>
    ) => Effect.Effect<void, E | ConfigFileError>
  }
}

/**
 * An account's `configDir` as a path: a leading `~` (alone or before `/`) is `home`, the same for
 * the CLI that runs in it and for every check of it.
 *
 * @since 0.1.0
 * @category getters
 */
export const expandHome = (dir: string, home: string): string => dir.replace(/^~(?=$|\/)/, () => home)

/**
 * The JSON Schema of the config file, generated from {@link Document}.
 *
 * @since 0.1.0
 * @category schemas
 */
export const jsonSchema: () => unknown = document.jsonSchema
