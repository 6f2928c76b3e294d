import type * as Backend from "@fallback/core/Backend"
import * as Place from "@fallback/core/Place"
import * as Response from "effect/ai/Response"
import * as Effect from "effect/Effect"

import type * as FallbackAi from "../FallbackAi.js"

/**
 * Where a call was answered, as the caller reads it on the finish part's metadata: the place
 * that answered, where the call started, the model as its provider said it, and where a cut
 * streamed answer was continued from.
 *
 * @internal
 */
export const noteOf = (
  start: Place.Place,
  at: Place.Place | undefined,
  model: string | undefined,
  continued?: FallbackAi.Moved["continued"]
): FallbackAi.Moved => {
  const place = Place.format(at ?? start)
  const from = Place.format(start)
  return {
    place,
    from,
    moved: place !== from,
    ...(model === undefined ? {} : { model }),
    ...(continued === undefined ? {} : { continued })
  }
}

/** @internal */
export const annotated = (part: Response.AnyPart, note: FallbackAi.Moved): Response.AnyPart =>
  ({ ...part, metadata: { ...part.metadata, fallback: note } }) as Response.AnyPart

/** The usage a place that speaks text only reported. @internal */
export const usageOf = (result: Backend.Event | undefined): Response.Usage => {
  const usage = result?._tag === "Result" ? result.usage : undefined
  return new Response.Usage({
    inputTokens: { total: usage?.input },
    outputTokens: { total: usage?.output }
  } as any)
}

/** The model a response says answered it (its metadata part's model id). @internal */
export const modelOf = (parts: ReadonlyArray<Response.AnyPart>): string | undefined => {
  for (const part of parts) if (part.type === "response-metadata" && part.modelId !== undefined) return part.modelId
  return undefined
}

/**
 * The answering place, its model and the usage, on the call's span.
 *
 * @internal
 */
export const onSpan = (note: FallbackAi.Moved, finish: Response.AnyPart | undefined): Effect.Effect<void> => {
  const usage = finish?.type === "finish" ? finish.usage : undefined
  const attributes: Record<string, unknown> = {
    "fallback.place": note.place,
    "fallback.from": note.from,
    "fallback.moved": note.moved
  }
  if (note.model !== undefined) attributes["gen_ai.response.model"] = note.model
  if (usage?.inputTokens.total !== undefined) attributes["gen_ai.usage.input_tokens"] = usage.inputTokens.total
  if (usage?.outputTokens.total !== undefined) attributes["gen_ai.usage.output_tokens"] = usage.outputTokens.total
  if (note.continued !== undefined) attributes["fallback.continued_from"] = note.continued.from
  return Effect.annotateCurrentSpan(attributes)
}
