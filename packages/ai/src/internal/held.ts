import * as Secret from "@fallback/core/Secret"
import * as Config from "effect/Config"
import * as Redacted from "effect/Redacted"

/** A key read is a secret the process holds: masked wherever text leaves it. @internal */
export const held = (config: Config.Config<Redacted.Redacted>): Config.Config<Redacted.Redacted> =>
  Config.map(config, (key) => {
    Secret.hold(Redacted.value(key))
    return key
  })
