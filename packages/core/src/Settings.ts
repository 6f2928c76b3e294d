/**
 * What an agent is, settled where it was made: how hard it thinks, what it may reach for, whether
 * it may search the web, the skills and the callbacks it carries. Settings travel unchanged to
 * every stand-in; a place whose backend cannot honour one is not a place the agent moves to.
 *
 * @since 0.1.0
 */
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

/**
 * An agent's settings. `webSearch: false` and any `callbacks` are the two a backend may be unable
 * to honour.
 *
 * @since 0.1.0
 * @category models
 */
export class Settings extends Schema.Class<Settings>("@fallback/core/Settings")({
  effort: Schema.optional(Schema.String.annotations({ description: "how hard the agent thinks" })),
  permission: Schema.optional(Schema.String.annotations({ description: "the permission rung" })),
  webSearch: Schema.optionalWith(Schema.Boolean, { default: () => true }),
  skills: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }),
  callbacks: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] })
}) {}

/**
 * Settings with nothing said: web search allowed, no skills, no callbacks.
 *
 * @since 0.1.0
 * @category constants
 */
export const plain: Settings = new Settings({})

/**
 * What a backend can be told, as far as settings go.
 *
 * @since 0.1.0
 * @category models
 */
export interface Honours {
  /** It can be told not to search the web. */
  readonly webSearchOff: boolean
  /** It can be given callbacks. */
  readonly callbacks: boolean
}

/**
 * Why a backend cannot honour these settings, or none when it can: a setting quietly ignored
 * would be a setting that lies.
 *
 * @since 0.1.0
 * @category checks
 */
export const refusal = (settings: Settings, honours: Honours): Option.Option<string> =>
  !settings.webSearch && !honours.webSearchOff
    ? Option.some("cannot be told not to search the web")
    : settings.callbacks.length > 0 && !honours.callbacks
    ? Option.some("cannot be given callbacks")
    : Option.none()
