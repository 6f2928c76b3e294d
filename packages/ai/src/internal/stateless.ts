import type * as Backend from "@fallback/core/Backend"
import type * as Place from "@fallback/core/Place"
import * as Tool from "effect/ai/Tool"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"

import { type Call, callOn, models } from "./call.js"

/**
 * What a place that takes only text is asked: for `generateObject`, the prompt and the schema its
 * answer must match (written out the first time such a place is reached).
 */
const textFor = (call: Call, prompt: Backend.Prompt): Backend.Prompt => {
  if (call.kind !== "object") return prompt
  call.asked ??= `${prompt.text}\n\nAnswer with only a JSON object that matches this JSON Schema:\n${
    JSON.stringify(Tool.getJsonSchemaFromSchema(call.options.schema))
  }`
  return { text: call.asked, history: prompt.history }
}

/** A session of a place that takes only text, as a chain's place. */
const texted = (place: Place.Place, session: Backend.Session): Backend.Session => {
  const reply = session.reply
  const noted = <A>(prompt: Backend.Prompt, go: (prompt: Backend.Prompt) => A) =>
    Effect.withFiber<A>((fiber) => {
      const call = callOn(fiber)
      if (call === undefined) return Effect.succeed(go(prompt))
      call.at = place
      return Effect.succeed(go(textFor(call, prompt)))
    })
  return {
    ...session,
    keepsConversation: true,
    turn: (prompt) => Stream.unwrap(noted(prompt, session.turn)),
    reply: reply === undefined
      ? undefined
      : (prompt, limits) => Effect.flatten(noted(prompt, (prompt) => reply(prompt, limits)))
  }
}

/**
 * A backend as a chain's place: each call carries its whole conversation in its prompt, so no
 * session keeps exchanges of its own. An `effect/ai` place reads the call itself and notes where
 * it went; any other place is given the call as text, and its attempts are noted here.
 */
const statelessBackend = (backend: Backend.Backend): Backend.Backend => ({
  ...backend,
  open: (place, account, settings, opening) =>
    Effect.map(
      backend.open(place, account, settings, opening),
      (session): Backend.Session =>
        models.has(backend) ? { ...session, keepsConversation: true } : texted(place, session)
    )
})

/**
 * The backends of a chain, each as a place that keeps no conversation of its own.
 *
 * @internal
 */
export const statelessBackends = (backends: Backend.Service): Backend.Service => {
  const wrapped = new Map<string, Backend.Backend>()
  const of = (backend: Backend.Backend) => {
    let found = wrapped.get(backend.cli)
    if (found === undefined) wrapped.set(backend.cli, found = statelessBackend(backend))
    return found
  }
  return { get: (cli) => Option.map(backends.get(cli), of), all: backends.all.map(of) }
}
