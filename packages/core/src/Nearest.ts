/**
 * The names a misspelt one may have meant: the one edit-distance rule every "did you mean"
 * of fallback uses.
 *
 * @since 0.1.0
 */
import * as internal from "./internal/nearest.js"

/**
 * The edits between two names: a letter put in, left out or changed, or two neighbours swapped
 * (`lsit` → `list` is one), each one edit.
 *
 * @since 0.1.0
 * @category utils
 */
export const distance: (a: string, b: string) => number = internal.distance

/**
 * The known names closest to a misspelt one, nearest first, ignoring case: at most three, and
 * only those a typo away (at most a third of the name's length in edits, and at least 2).
 *
 * @since 0.1.0
 * @category utils
 */
export const nearest: (name: string, known: Iterable<string>) => ReadonlyArray<string> = internal.nearest
