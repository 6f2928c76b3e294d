import * as Place from "@fallback/core/Place"
import * as Tool from "effect/ai/Tool"
import * as Toolkit from "effect/ai/Toolkit"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"

import type * as Gateway from "../../Gateway.js"
import type { Call, Dialect } from "../wire/dialect.js"
import type { Conversation } from "./conversations.js"
import type { Served } from "./served.js"

/** The part of a request's log line known before it is answered. @internal */
export type Begun = Pick<Gateway.Logged, "at" | "method" | "path"> & { readonly started: number }

/** Writes a request's log line, when the gateway has a log. @internal */
export const logged = (served: Served, begun: Begun, rest: Omit<Gateway.Logged, "at" | "method" | "path" | "ms">) =>
  Effect.flatMap(Clock.currentTimeMillis, (now) => {
    const { started, ...line } = begun
    return served.options.log === undefined
      ? Effect.void
      : served.options.log({ ...line, ...rest, ms: now - started })
  })

/** The options of a call as `LanguageModel` takes them: the client's tools, never run here. @internal */
export const optionsOf = (call: Call) => ({
  prompt: call.prompt,
  toolkit: toolkitOf(call.tools),
  toolChoice: call.toolChoice,
  disableToolCallResolution: true as const,
  toolCallValidation: "deferred" as const
})

// A client sends the same tools every turn: their toolkit is made once, by the tools' JSON.
const toolkits = new Map<string, Toolkit.Toolkit<any>>()
const empty = Toolkit.make()

const toolkitOf = (tools: Call["tools"]): Toolkit.Toolkit<any> => {
  if (tools.length === 0) return empty
  const named = JSON.stringify(tools)
  let toolkit = toolkits.get(named)
  if (toolkit === undefined) {
    toolkit = Toolkit.make(
      ...tools.map((tool) =>
        Tool.dynamic(tool.name, {
          ...(tool.description === undefined ? {} : { description: tool.description }),
          parameters: tool.parameters
        })
      )
    )
    if (toolkits.size >= 256) toolkits.clear()
    toolkits.set(named, toolkit)
  }
  return toolkit
}

/** What answering one call needs. @internal */
export interface Asked {
  readonly served: Served
  readonly dialect: Dialect
  readonly call: Call
  readonly start: Place.Place
  readonly conversation: Conversation
  readonly begun: Begun
}

/** The start as the log line and headers write it. @internal */
export const startName = (asked: Asked): string => Place.format(asked.start)
