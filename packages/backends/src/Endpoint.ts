/**
 * What each agent CLI is given to reach an endpoint the config names (`clis.X.endpoint` or an
 * account's `endpoint`): claude a base URL, codex a provider of its own with its retrying off,
 * gemini a base URL and settings (written into the account's config dir) that take the key from the
 * environment and turn its retrying off, opencode a provider in its config.
 *
 * @since 0.1.0
 */
import * as internal from "./internal/http/endpoint.js"

/**
 * What a CLI is given to reach an endpoint: variables as an account's, options for its backend, and
 * a settings file in the account's config dir when it needs one.
 *
 * @since 0.1.0
 * @category models
 */
export type Reach = internal.Reach

/**
 * What `cli` is given to reach `endpoint` for `model`; undefined for a CLI fallback does not point.
 *
 * @since 0.1.0
 * @category constructors
 */
export const reach = internal.reach

/**
 * Merges settings into a CLI's JSON settings file, keeping the user's other settings.
 *
 * @since 0.1.0
 * @category utils
 */
export const writeSettings = internal.writeSettings
