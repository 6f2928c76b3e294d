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
 * wherever they appear, whatever their shape. A value shorter than this is not held: masking it
 * would hide ordinary words.
 */
const held = new Set<string>()
const shortest = 6
let longestFirst: Array<string> = []

/**
 * Remembers a secret value the process has read, so no text leaving the process shows it.
 *
 * @internal
 */
export const hold = (value: string): void => {
  const trimmed = value.trim()
  if (trimmed.length < shortest || held.has(trimmed)) return
  held.add(trimmed)
  longestFirst = [...held].sort((a, b) => b.length - a.length)
}

/**
 * Masks every secret value held and every secret-looking run in a text, keeping the words around
 * them.
 *
 * @internal
 */
export const redact = (text: string): string => {
  let out = text
  for (const value of longestFirst) {
    if (out.includes(value)) out = out.split(value).join(mask)
  }
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
  if (prompt.trim().length >= 16) hold(prompt)
  for (const line of prompt.split("\n")) if (line.trim().length >= 16) hold(line)
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
