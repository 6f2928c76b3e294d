/**
 * Secrets kept out of everything fallback prints, stores or sends on: the values it has read
 * (every key, every `{ fromEnv }` value) and anything shaped like a key, a token or a password.
 *
 * @since 0.1.0
 */
import * as internal from "./internal/secret.js"

/**
 * Remembers a secret value this process has read (a key, a token): from now on {@link mask}
 * hides it wherever it appears, whatever its shape or length, in base64 and base64url too, and
 * cut by line breaks. A value of three to five characters is hidden where it stands as a whole
 * word (no letter, digit, `_` or `-` beside it), so a word that merely holds it stays readable; one
 * of one or two characters where it is a whole value: the whole text, a quoted string, or what
 * follows `=`.
 *
 * @since 0.1.0
 * @category utils
 */
export const hold: (value: string) => void = internal.hold

/**
 * Remembers what a provider might echo of a prompt: the whole of it, its longer lines, and any
 * word in it that looks like a key.
 *
 * @since 0.1.0
 * @category utils
 */
export const holdPrompt: (prompt: string) => void = internal.holdPrompt

/**
 * A text with every held secret and every secret-looking run (API keys, bearer tokens,
 * `key=…`, passwords in URLs) replaced by `***`, the words around them kept.
 *
 * @since 0.1.0
 * @category utils
 */
export const mask: (text: string) => string = internal.redact

/**
 * Whether a value on its own looks like a credential rather than a setting.
 *
 * @since 0.1.0
 * @category guards
 */
export const looksLikeSecret: (value: string) => boolean = internal.looksLikeSecret

/**
 * Whether a variable's name says it holds a credential (`…_API_KEY`, `…_TOKEN`, `…_PASSWORD`).
 *
 * @since 0.1.0
 * @category guards
 */
export const secretName: (name: string) => boolean = internal.secretName
