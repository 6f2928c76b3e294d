import * as Accounts from "@fallback/core/Accounts"
import * as ConfigFile from "@fallback/core/ConfigFile"
import * as Steps from "@fallback/core/Steps"
import * as Flag from "effect/cli/Flag"
import type * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Path from "effect/Path"

/** @internal */
export const config = Flag.String("config").pipe(
  Flag.withMetavar("FILE"),
  Flag.withDescription("the config file (default: $FALLBACK_CONFIG, else ~/.config/fallback/config.json)"),
  Flag.optional
)

/** A flag that is on when given and off when not, with no `--no-` form. */
export const toggle = (name: string, description: string, alias?: string) =>
  Flag.Boolean(name).pipe(
    (flag) => alias === undefined ? flag : Flag.withAlias(flag, alias),
    Flag.withDescription(description),
    Flag.withoutNegation,
    Flag.withDefault(false)
  )

/** @internal */
export const json = toggle("json", "print JSON instead of a table", "j")

/** A flag that takes a text value and may be left out. */
export const text = (name: string, metavar: string, description: string) =>
  Flag.String(name).pipe(Flag.withMetavar(metavar), Flag.withDescription(description), Flag.optional)

/** A flag that takes a text value and may be given any number of times. */
export const repeated = (name: string, metavar: string, description: string) =>
  Flag.String(name).pipe(Flag.withMetavar(`${metavar}…`), Flag.withDescription(description), Flag.atLeast(0))

/**
 * The steps and accounts of the config file the command line names, or the default one.
 *
 * @internal
 */
export const editing = (
  file: Option.Option<string>
): Layer.Layer<
  Steps.Steps | Accounts.Accounts | ConfigFile.Store,
  Config.ConfigError,
  FileSystem.FileSystem | Path.Path
> =>
  Layer.mergeAll(Steps.Steps.layer, Accounts.Accounts.layer).pipe(
    Layer.provideMerge(
      Option.match(file, {
        onNone: () => ConfigFile.Store.layerDefault,
        onSome: (file) =>
          Layer.unwrap(Effect.gen(function*() {
            return ConfigFile.Store.layerFile((yield* Path.Path).resolve(file))
          }))
      })
    )
  )

/**
 * A file or folder beside the config file the command line works on (`health.json`,
 * `conversations.json`, `homes`).
 *
 * @internal
 */
export const besideConfig = (name: string) =>
  Effect.gen(function*() {
    const store = yield* ConfigFile.Store
    const path = yield* Path.Path
    const file = yield* Option.match(store.file, { onNone: () => ConfigFile.location, onSome: Effect.succeed })
    return path.join(path.dirname(file), name)
  })
