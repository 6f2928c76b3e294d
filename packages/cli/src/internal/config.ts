import * as Options from "@effect/cli/Options"
import type * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Accounts from "@fallback/core/Accounts"
import * as ConfigFile from "@fallback/core/ConfigFile"
import * as Steps from "@fallback/core/Steps"
import type * as ConfigError from "effect/ConfigError"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"

/** @internal */
export const config = Options.text("config").pipe(
  Options.withDescription("the config file (default: $FALLBACK_CONFIG, else ~/.config/fallback/config.json)"),
  Options.optional
)

/** @internal */
export const json = Options.boolean("json").pipe(
  Options.withAlias("j"),
  Options.withDescription("print JSON instead of a table")
)

/**
 * The steps and accounts of the config file the command line names, or the default one.
 *
 * @internal
 */
export const editing = (
  file: Option.Option<string>
): Layer.Layer<
  Steps.Steps | Accounts.Accounts | ConfigFile.Store,
  ConfigError.ConfigError,
  FileSystem.FileSystem | Path.Path
> =>
  Layer.mergeAll(Steps.Steps.layer, Accounts.Accounts.layer).pipe(
    Layer.provideMerge(
      Option.match(file, {
        onNone: () => ConfigFile.Store.layerDefault,
        onSome: (path) => Layer.unwrapEffect(Effect.map(Path.Path, (p) => ConfigFile.Store.layerFile(p.resolve(path))))
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
