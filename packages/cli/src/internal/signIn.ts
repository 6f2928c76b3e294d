import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Path from "effect/Path"

/**
 * Where an agent CLI keeps its sign-in (on Linux): the variable that moves its home to an
 * account's config dir, its own home under HOME, the file a sign-in writes under that home, and
 * how to sign in. A folder without that file is not signed in, however many other files it holds.
 */
/** @internal */
export interface Kept {
  readonly variable: string
  readonly own: string
  readonly file: string
  readonly how: string
  readonly then?: string
}

const kept: Readonly<Record<string, Kept>> = {
  claude: { variable: "CLAUDE_CONFIG_DIR", own: ".claude", file: ".credentials.json", how: "claude", then: "/login" },
  codex: { variable: "CODEX_HOME", own: ".codex", file: "auth.json", how: "codex login" },
  gemini: {
    variable: "GEMINI_CLI_HOME",
    own: "",
    file: ".gemini/oauth_creds.json",
    how: "gemini",
    then: "Login with Google"
  },
  opencode: { variable: "XDG_DATA_HOME", own: ".local/share", file: "opencode/auth.json", how: "opencode auth login" }
}

/**
 * How `cli` keeps its sign-in, if known.
 *
 * @internal
 */
export const signInOf = (cli: string): Kept | undefined => kept[cli]

/**
 * The line that signs `cli` in: at `dir` (as a shell reads it) when given, else at its own home.
 *
 * @internal
 */
export const signInLine = (at: Kept, dir?: string): string =>
  `${dir === undefined ? "" : `${at.variable}=${dir} `}${at.how}${at.then === undefined ? "" : `  # then ${at.then}`}`

/**
 * Whether `cli` is signed in at `dir` (an account's config dir, already expanded), else at its
 * own home under `home`; undefined for a CLI whose sign-in is not known.
 *
 * @internal
 */
export const signedIn = (cli: string, dir: string | undefined, home: string) =>
  Effect.gen(function*() {
    const at = kept[cli]
    if (at === undefined) return undefined
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const file = dir === undefined ? path.join(home, at.own, at.file) : path.join(dir, at.file)
    return yield* fs.stat(file).pipe(
      Effect.map((info) => info.type === "File" && info.size > 0),
      Effect.orElseSucceed(() => false)
    )
  })
