import type * as Settings from "../Settings.js"
import { nearest } from "./nearest.js"

/** The rungs, narrowest first: the order "wider" is read in. */
export const rungs: ReadonlyArray<Settings.Permission> = ["read-only", "ask", "edit", "full"]

/**
 * The CLIs' own words a person may have written before there was one vocabulary, each with the
 * rung that says the same; they are refused, naming the rung, never translated.
 */
const ownWords: Readonly<Record<string, { readonly cli: string; readonly rung: Settings.Permission }>> = {
  plan: { cli: "claude's", rung: "read-only" },
  default: { cli: "claude's and gemini's", rung: "ask" },
  dontAsk: { cli: "claude's", rung: "ask" },
  acceptEdits: { cli: "claude's", rung: "edit" },
  bypassPermissions: { cli: "claude's", rung: "full" },
  "workspace-write": { cli: "codex's", rung: "edit" },
  "danger-full-access": { cli: "codex's", rung: "full" },
  auto_edit: { cli: "gemini's", rung: "edit" },
  yolo: { cli: "gemini's", rung: "full" }
}

const list = `the rungs, narrowest first: ${rungs.join(", ")}`

/** @internal */
export const isRung = (word: string): word is Settings.Permission =>
  typeof word === "string" && (rungs as ReadonlyArray<string>).includes(word)

/** @internal */
export const wider = (rung: Settings.Permission, than: Settings.Permission): boolean =>
  rungs.indexOf(rung) > rungs.indexOf(than)

/** What is wrong with a word that is not a rung, and what to write instead. @internal */
export const refusedWord = (word: string): string => {
  const own = Object.hasOwn(ownWords, word) ? ownWords[word] : undefined
  if (own !== undefined) {
    return `"${word}" is ${own.cli} own word, not a permission rung: write ${own.rung} (${list}; each CLI is given its own flags for it)`
  }
  const close = nearest(word, rungs)
  return `"${word}" is not a permission rung${
    close.length > 0 ? ` (did you mean ${close.join(" or ")}?)` : ""
  }; ${list}`
}
