import type * as Agent from "@fallback/core/Agent"
import type * as Backend from "@fallback/core/Backend"
import * as Place from "@fallback/core/Place"
import * as Response from "effect/ai/Response"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"

import type * as FallbackAi from "../FallbackAi.js"
import { annotated, noteOf, onSpan, usageOf } from "./answer.js"
import { type Call, carried, currentCall } from "./call.js"
import { spread } from "./chunks.js"
import { reference } from "./generation.js"
import { flatten } from "./prompt.js"

/** Parts that open a block of an answer, and the parts that close them. */
const closing: Readonly<Record<string, "text-end" | "reasoning-end" | undefined>> = {
  "text-start": "text-end",
  "reasoning-start": "reasoning-end"
}

/** Parts that are not content: what comes before an answer, and the end of one. */
const opening: ReadonlySet<string> = new Set([
  "response-metadata",
  "text-start",
  "reasoning-start",
  "tool-params-start",
  "finish"
])

/**
 * A streamed call through the chain: the parts of the place answering it as they come (or the
 * text of a place that speaks text only, as parts); a continuation at the next place after a
 * cut closes the blocks the cut left open and goes on with the next place's parts; the finish
 * part says where it was answered ({@link FallbackAi.Moved}), and so does the call's span.
 *
 * @internal
 */
export const streamed = (
  agent: Agent.Agent,
  options: any,
  failed: (cause: any) => Effect.Effect<never, unknown>
): Stream.Stream<any, any> =>
  Stream.unwrap(Effect.map(Effect.all([agent.at, Effect.service(reference)]), ([start, generation]) => {
    const call: Call = {
      kind: "stream",
      options,
      generation,
      at: undefined,
      response: undefined,
      asked: undefined,
      open: true
    }
    let texted = false
    let result: Backend.Event | undefined = undefined
    let model: string | undefined = undefined
    let delivered = ""
    let shown = false
    let continued: FallbackAi.Moved["continued"] = undefined
    let done = false
    const open = new Map<string, "text-end" | "reasoning-end">()
    const finished = (part: Response.AnyPart): Response.AnyPart => {
      done = true
      const note = noteOf(start, call.at, model, continued)
      return annotated(part, note)
    }
    let introduced = false
    /** The answer's metadata part, which says where it is answered before any content does. */
    const introduce = (part: Response.AnyPart): Response.AnyPart => {
      introduced = true
      return annotated(part, noteOf(start, call.at, model, continued))
    }
    /** A place that speaks text only gives no metadata part: one is made for it before its text. */
    const introduction = (): ReadonlyArray<Response.AnyPart> =>
      introduced
        ? []
        : [introduce(Response.makePart("response-metadata", { id: undefined, modelId: model, timestamp: undefined }))]
    const passed = (part: Response.AnyPart): Response.AnyPart => {
      const closes = closing[part.type]
      if (closes !== undefined) open.set((part as { id: string }).id, closes)
      else if (part.type === "text-end" || part.type === "reasoning-end") open.delete(part.id)
      if (part.type === "response-metadata" && part.modelId !== undefined) model = part.modelId
      if (part.type === "text-delta") delivered += part.delta
      if (!opening.has(part.type) && !(part.type === "text-delta" && part.delta === "")) shown = true
      return part.type === "finish" ? finished(part) : part.type === "response-metadata" ? introduce(part) : part
    }
    /** A cut answer continued at another place: the blocks it left open are closed first. */
    const movedOn = (event: Extract<Backend.Event, { _tag: "Moved" }>): ReadonlyArray<Response.AnyPart> => {
      if (!shown) return []
      continued = { from: Place.format(event.from), delivered: delivered.length }
      const ends = [...open].map(([id, type]) => Response.makePart(type, { id }))
      open.clear()
      // a place that speaks text only opens its own block again
      texted = false
      return ends
    }
    const partsFor = (event: Backend.Event): ReadonlyArray<Response.AnyPart> => {
      const parts = carried.get(event)
      if (parts !== undefined) return parts.map(passed)
      switch (event._tag) {
        case "Moved":
          return movedOn(event)
        case "Text": {
          delivered += event.text
          if (event.text !== "") shown = true
          const delta = Response.makePart("text-delta", { id: "0", delta: event.text })
          if (texted) return [delta]
          texted = true
          open.set("0", "text-end")
          return [...introduction(), Response.makePart("text-start", { id: "0" }), delta]
        }
        case "Result": {
          result = event
          model = event.model ?? model
          if (texted) return []
          texted = true
          open.set("0", "text-end")
          return [
            ...introduction(),
            Response.makePart("text-start", { id: "0" }),
            Response.makePart("text-delta", { id: "0", delta: event.text })
          ]
        }
        default:
          return []
      }
    }
    const ending = Stream.suspend(() => {
      if (!texted || done) return Stream.empty
      const ends = open.has("0") ? [Response.makePart("text-end", { id: "0" })] : []
      open.delete("0")
      return Stream.fromIterable([
        ...ends,
        finished(Response.makePart("finish", { reason: "stop", usage: usageOf(result) } as any))
      ])
    })
    // a chunk of the engine's events at a time, as the parts they make (no stream, no effect, a part)
    return spread(agent.turn(flatten(options.prompt)), (events) => ({ out: events.flatMap(partsFor) })).pipe(
      Stream.concat(ending),
      Stream.mapArrayEffect((parts) => {
        const finish = parts.find((part: Response.AnyPart) => part.type === "finish") as
          | Response.FinishPart
          | undefined
        return finish === undefined
          ? Effect.succeed(parts)
          : Effect.as(onSpan(finish.metadata.fallback!, finish), parts)
      }),
      Stream.catchCause((cause) => Stream.fromEffect(failed(cause))),
      Stream.ensuring(Effect.sync(() => {
        call.open = false
      })),
      Stream.provideService(currentCall, call),
      Stream.withSpan("FallbackAi.streamText", { captureStackTrace: false })
    )
  }))
