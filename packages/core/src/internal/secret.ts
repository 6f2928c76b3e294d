import { Base64 } from "effect/encoding"

/** @internal */
export const mask = "***"

/**
 * Shapes of the secrets a backend may echo back, each with what stays visible: provider API
 * keys keep their vendor prefix, bearer tokens keep the scheme, `key=value` pairs keep the name,
 * a URL keeps its user and host.
 */
const shapes: ReadonlyArray<readonly [RegExp, string]> = [
  [/\b([a-z][a-z0-9+.-]*:\/\/[^\s:/@]*:)[^\s/@]+@/gi, `$1${mask}@`],
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi, `$1 ${mask}`],
  [/\b(sk-ant-|sk-proj-|sk-or-|sk_live_|sk_test_|sk-)[A-Za-z0-9_-]{12,}/g, `$1${mask}`],
  [/\b(gsk_|hf_|nvapi-|r8_|xai-|pplx-|glpat-|npm_|dop_v1_|pk_live_|rk_live_)[A-Za-z0-9_-]{12,}/g, `$1${mask}`],
  [/\b(AIza|ya29\.)[A-Za-z0-9_-]{16,}/g, `$1${mask}`],
  [/\b(gh[pousr]_|github_pat_)[A-Za-z0-9_]{16,}/g, `$1${mask}`],
  [/\b(xox[abprs]-)[A-Za-z0-9-]{10,}/g, `$1${mask}`],
  [/\b(AKIA|ASIA)[A-Z0-9]{16}\b/g, `$1${mask}`],
  [/\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, mask],
  [
    /\b((?:x-api-key|x-goog-api-key|api-key)["']?\s*[:=]?\s*["']?)(?!fromEnv\b)(?![^\s"',;&]*\*\*\*)[^\s"',;&]{6,}/gi,
    `$1${mask}`
  ],
  [
    /\b((?:proxy-)?authorization["']?\s*[:=]\s*["']?)(?!Bearer\b|Basic\b)(?!fromEnv\b)(?![^\s"',;&]*\*\*\*)[^\s"',;&]{6,}/gi,
    `$1${mask}`
  ],
  [/\b((?:[a-z0-9]+[_-])*key\s*=\s*["']?)(?!fromEnv\b)(?![^\s"',;&]*\*\*\*)[^\s"',;&]{6,}/gi, `$1${mask}`],
  [
    /\b((?:[a-z0-9]+[_-])*(?:api[_-]?key|apikey|access[_-]?token|auth[_-]?token|secret|password|passwd|token|credentials?)["']?\s*[:=]\s*["']?)(?!fromEnv\b)(?![^\s"',;&]*\*\*\*)[^\s"',;&]{6,}/gi,
    `$1${mask}`
  ]
]

/**
 * The secret values this process has read (keys, the values of `{ fromEnv }` variables), masked
 * wherever they appear, whatever their shape, with what a provider may echo of them: their base64
 * and base64url forms, and the value cut by a line break. A value shorter than {@link shortest}
 * is masked where it stands as a whole word (no letter, digit, `_` or `-` touches it), so an
 * ordinary word that merely holds it is left alone; one of one or two characters, and a short one
 * JSON writes bare (digits, `true`, `false`, `null`), only where it is a whole value (the whole text, a quoted string, what follows `=`): as a bare word or a JSON
 * number it would hide ordinary words and digits and break the command's JSON lines.
 */
const held = new Set<string>()
const shortest = 6
let longestFirst: Array<string> = []
let whole: RegExp | undefined = undefined
let tiny: RegExp | undefined = undefined

const escaped = (value: string) => value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/**
 * The parts of `value`'s base64 that are the same wherever it starts in the encoded bytes (at
 * any of the three alignments), in base64 and base64url: what shows of it inside a longer
 * encoded text (`Basic` credentials, a JSON body sent back encoded).
 */
const encodings = (value: string): Array<string> => {
  const length = utf8Length(value)
  const forms: Array<string> = []
  for (const offset of [0, 1, 2]) {
    const encoded = Base64.encode("\u0000".repeat(offset) + value)
    const core = encoded.slice(Math.ceil(offset * 8 / 6), Math.floor((offset + length) * 8 / 6))
    if (core.length >= shortest) forms.push(core, core.replace(/\+/g, "-").replace(/\//g, "_"))
  }
  return forms
}

const utf8Length = (text: string): number => {
  let bytes = 0
  for (const character of text) {
    const point = character.codePointAt(0)!
    bytes += point < 0x80 ? 1 : point < 0x800 ? 2 : point < 0x10000 ? 3 : 4
  }
  return bytes
}

/** The held values whose base64 forms are held too (a value first held as a prompt line is not). */
const encodedFor = new Set<string>()
/** Whether `held` changed since `longestFirst`, `whole` and `tiny` were built from it. */
let stale = false

const remember = (value: string, encoded: boolean): void => {
  const trimmed = value.trim()
  if (trimmed.length === 0) return
  const encode = encoded && trimmed.length >= shortest && !encodedFor.has(trimmed)
  if (held.has(trimmed) && !encode) return
  held.add(trimmed)
  if (encode) {
    encodedFor.add(trimmed)
    for (const form of encodings(trimmed)) held.add(form)
  }
  stale = true
}

/** A value JSON writes bare (a number, `true`, `false`, `null`): masked only as a whole value. */
const literal = (form: string) => /^(?:\d+|true|false|null)$/.test(form)

const rebuild = (): void => {
  stale = false
  const all = [...held]
  longestFirst = all.filter((form) => form.length >= shortest).sort((a, b) => b.length - a.length)
  const alternatives = (forms: Array<string>) => forms.sort((a, b) => b.length - a.length).map(escaped).join("|")
  const short = alternatives(all.filter((form) => form.length < shortest && form.length > 2 && !literal(form)))
  whole = short === "" ? undefined : new RegExp(`(?<![A-Za-z0-9_-])(?:${short})(?![A-Za-z0-9_-])`, "g")
  const shorter = alternatives(all.filter((form) => form.length <= 2 || (form.length < shortest && literal(form))))
  tiny = shorter === ""
    ? undefined
    : new RegExp(`^\\s*(?:${shorter})\\s*$|(["'])(?:${shorter})\\1|(=\\s*)(?:${shorter})(?=$|[\\s&;,"'])`, "g")
}

const tinyMasked = (_: string, quote: string | undefined, equals: string | undefined) =>
  quote !== undefined ? `${quote}${mask}${quote}` : equals !== undefined ? `${equals}${mask}` : mask

/**
 * Remembers a secret value the process has read, so no text leaving the process shows it.
 *
 * @internal
 */
export const hold = (value: string): void => remember(value, true)

/**
 * A line break and the indent after it, as it is or escaped in JSON (`\\n`): what a wrapped echo
 * puts inside a value.
 */
const lineBreak = /(?:\r?\n|\\r\\n|\\n)[ \t]*|\r/g

/**
 * A text with every held value masked that shows only with its line breaks taken out.
 */
const acrossLines = (text: string): string => {
  const joined = text.replace(lineBreak, "")
  const found = longestFirst.filter((value) => joined.includes(value))
  if (found.length === 0) return text
  // where each character of `joined` is in `text`
  const at: Array<number> = []
  let from = 0
  for (const match of text.matchAll(lineBreak)) {
    for (let i = from; i < match.index; i++) at.push(i)
    from = match.index + match[0].length
  }
  for (let i = from; i < text.length; i++) at.push(i)
  const ranges: Array<readonly [number, number]> = []
  for (const value of found) {
    for (let start = joined.indexOf(value); start !== -1; start = joined.indexOf(value, start + value.length)) {
      ranges.push([at[start]!, at[start + value.length - 1]! + 1])
    }
  }
  ranges.sort((a, b) => a[0] - b[0])
  let out = ""
  let end = 0
  for (const [start, stop] of ranges) {
    if (stop <= end) continue
    out += start >= end ? `${text.slice(end, start)}${mask}` : ""
    end = stop
  }
  return out + text.slice(end)
}

/**
 * Masks every secret value held and every secret-looking run in a text, keeping the words around
 * them.
 *
 * @internal
 */
export const redact = (text: string): string => {
  if (stale) rebuild()
  let out = text
  for (const value of longestFirst) {
    if (out.includes(value)) out = out.split(value).join(mask)
  }
  if (longestFirst.length > 0 && /[\r\n]|\\n/.test(out)) out = acrossLines(out)
  if (whole !== undefined) out = out.replace(whole, mask)
  if (tiny !== undefined) out = out.replace(tiny, tinyMasked)
  return shapes.reduce((masked, [shape, replacement]) => masked.replace(shape, replacement), out)
}

const tests = shapes.map(([shape]) => new RegExp(shape.source, shape.flags.replace("g", "")))

/**
 * Whether a value on its own looks like a credential rather than a setting: a known key shape, a
 * URL with a password in it, or a long run of mixed letters and digits with no spaces.
 *
 * @internal
 */
export const looksLikeSecret = (value: string): boolean =>
  tests.some((shape) => shape.test(value)) ||
  (/^[A-Za-z0-9_\-+/=.]{32,}$/.test(value) && /\d/.test(value) && /[A-Za-z]/.test(value) && !/^[./~]/.test(value))

/**
 * Whether a variable's name says it holds a credential (`ANTHROPIC_API_KEY`, `GITHUB_TOKEN`,
 * `DB_PASSWORD`): its value is never a literal in the config.
 *
 * @internal
 */
export const secretName = (name: string): boolean =>
  /(?:^|_)(?:API_?KEY|KEY|KEYS|TOKEN|SECRET|PASSWORD|PASSWD|PASS|PWD|CREDENTIALS?|AUTH)(?:_|$)/i.test(name) ||
  /(?:APIKEY|TOKEN|SECRET|PASSWORD)/i.test(name)

/**
 * The parts of a prompt a provider may echo in an error: the whole of it, its longer lines and
 * any word in it that looks like a key.
 *
 * @internal
 */
export const holdPrompt = (prompt: string): void => {
  if (prompt.trim().length >= 16) remember(prompt, false)
  for (const line of prompt.split("\n")) if (line.trim().length >= 16) remember(line, false)
  for (const word of prompt.split(/[\s"'`,;()<>[\]{}]+/)) if (looksLikeSecret(word)) hold(word)
}

/**
 * A text cut to `length` characters, saying so when it was cut: what a backend said is kept
 * whole enough to read and never more.
 *
 * @internal
 */
export const excerpt = (text: string, length = 2000): string =>
  text.length <= length ? text : `${text.slice(0, length)}… (${text.length - length} more characters)`
