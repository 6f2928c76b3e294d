import type * as FallbackAi from "@fallback/ai/FallbackAi"
import type * as Response from "effect/ai/Response"

const continues = (part: Response.AnyPart): boolean =>
  part.type === "response-metadata" &&
  (part.metadata as { readonly fallback?: FallbackAi.Moved } | undefined)?.fallback?.continued !== undefined

/**
 * Joins a text cut at one place and continued at the next into the one block the client was
 * reading: the engine closes the cut place's open text (`text-end`) and the next place opens its
 * own (`text-start`, after its `continued` metadata), which a wire would write as two blocks (two
 * Anthropic content blocks, two Responses output items). The end is held until what follows is
 * known; a continuation's start is dropped and its pieces carry the held block's id.
 *
 * @internal
 */
export const joiner = () => {
  let held: Response.AnyPart | undefined
  let joining = false
  const renamed = new Map<string, string>()
  const rename = (part: Response.AnyPart): Response.AnyPart => {
    if (part.type !== "text-delta" && part.type !== "text-end") return part
    const id = renamed.get(part.id)
    return id === undefined ? part : { ...part, id } as Response.AnyPart
  }
  const flush = (): Array<Response.AnyPart> => {
    const out = held === undefined ? [] : [held]
    held = undefined
    joining = false
    return out
  }
  return {
    /** The parts to write for the next one, in order. */
    part: (next: Response.AnyPart): ReadonlyArray<Response.AnyPart> => {
      const part = rename(next)
      if (next.type === "text-end") renamed.delete(next.id)
      if (part.type === "text-end") {
        const out = flush()
        held = part
        return out
      }
      if (held !== undefined && continues(part)) {
        joining = true
        return [part]
      }
      if (held !== undefined && joining && part.type === "text-start") {
        renamed.set(part.id, (held as Response.TextEndPart).id)
        held = undefined
        joining = false
        return []
      }
      return [...flush(), part]
    },
    /** What is still held, at the end of the answer (or before its error). */
    flush
  }
}
