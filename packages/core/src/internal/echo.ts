/** Control characters, and the invisible ones that reorder or hide text on a terminal. */
export const unprintable = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/

const unprintableAll = new RegExp(unprintable.source, "g")

/**
 * What a message quotes of a person's input: quoted, its unprintable characters written as
 * escapes, and cut to `length` characters, so no input makes a message long or moves a terminal.
 *
 * @internal
 */
export const echo = (input: string, length = 60): string => {
  const cut = input.length <= length ? input : `${input.slice(0, length)}…`
  return JSON.stringify(cut).replace(unprintableAll, escaped)
}

const escaped = (character: string) => `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`

/**
 * A text with its unprintable characters (but newlines and tabs) written as escapes, so what a
 * backend said cannot drive the terminal it is shown on.
 *
 * @internal
 */
export const printable = (text: string): string =>
  text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g, escaped)
