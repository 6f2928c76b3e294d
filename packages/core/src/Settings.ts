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
 * An agent's settings. Each is carried to every backend that honours it; a backend that does not
 * (see {@link Honours}) is not a place the agent moves to.
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
 * What a backend can be told, as far as settings go. A setting it is not said to honour is one
 * it cannot: an agent that has it does not move there.
 *
 * @since 0.1.0
 * @category models
 */
export interface Honours {
  /** It can be told not to search the web. */
  readonly webSearchOff: boolean
  /** It can be given callbacks. */
  readonly callbacks: boolean
  /** It can be told how hard to think. */
  readonly effort?: boolean | undefined
  /** It can be given a permission rung. */
  readonly permission?: boolean | undefined
  /** It can be given skills. */
  readonly skills?: boolean | undefined
}

/**
 * Why a backend cannot honour these settings, or none when it can: a setting quietly ignored
 * would be a setting that lies.
 *
 * @since 0.1.0
 * @category guards
 */
export const refusal = (settings: Settings, honours: Honours): Option.Option<string> =>
  !settings.webSearch && !honours.webSearchOff
    ? Option.some("cannot be told not to search the web")
    : settings.callbacks.length > 0 && !honours.callbacks
    ? Option.some("cannot be given callbacks")
    : settings.effort !== undefined && honours.effort !== true
    ? Option.some(`cannot be told how hard to think (effort ${settings.effort})`)
    : settings.permission !== undefined && honours.permission !== true
    ? Option.some(`cannot be given a permission rung (${settings.permission})`)
    : settings.skills.length > 0 && honours.skills !== true
    ? Option.some(`cannot be given skills (${settings.skills.join(", ")})`)
    : Option.none()
