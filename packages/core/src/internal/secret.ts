/** @internal */
export const mask = "***"

/**
 * Shapes of the secrets a backend may echo back, each with what stays visible: provider API
 * keys keep their vendor prefix, bearer tokens keep the scheme, `key=value` pairs keep the name.
 */
const shapes: ReadonlyArray<readonly [RegExp, string]> = [
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi, `$1 ${mask}`],
  [/\b(sk-ant-|sk-proj-|sk-)[A-Za-z0-9_-]{12,}/g, `$1${mask}`],
  [/\b(AIza|ya29\.)[A-Za-z0-9_-]{16,}/g, `$1${mask}`],
  [/\b(gh[pousr]_|github_pat_)[A-Za-z0-9_]{16,}/g, `$1${mask}`],
  [/\b(xox[abprs]-)[A-Za-z0-9-]{10,}/g, `$1${mask}`],
  [/\b(AKIA|ASIA)[A-Z0-9]{16}\b/g, `$1${mask}`],
  [/\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, mask],
  [
    /\b((?:api[_-]?key|access[_-]?token|auth[_-]?token|secret|password|token)["']?\s*[:=]\s*["']?)[^\s"',;&]{6,}/gi,
    `$1${mask}`
  ]
]

/**
 * Masks every secret-looking run in a text, keeping the words around it.
 *
 * @internal
 */
export const redact = (text: string): string =>
  shapes.reduce((out, [shape, replacement]) => out.replace(shape, replacement), text)

/**
 * Whether a value on its own looks like a credential rather than a setting: a known key shape,
 * or a long run of mixed letters and digits with no spaces.
 *
 * @internal
 */
export const looksLikeSecret = (value: string): boolean =>
  redact(value) !== value ||
  (/^[A-Za-z0-9_\-+/=.]{32,}$/.test(value) && /\d/.test(value) && /[A-Za-z]/.test(value) && !/^[./~]/.test(value))
