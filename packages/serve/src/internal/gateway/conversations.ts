import * as FallbackAi from "@fallback/ai/FallbackAi"
import type * as Account from "@fallback/core/Account"
import * as Accounts from "@fallback/core/Accounts"
import type * as Agent from "@fallback/core/Agent"
import * as Backend from "@fallback/core/Backend"
import * as Place from "@fallback/core/Place"
import * as Steps from "@fallback/core/Steps"
import type * as LanguageModel from "effect/ai/LanguageModel"
import type * as Prompt from "effect/ai/Prompt"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Headers from "effect/http/Headers"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"

import type * as Gateway from "../../Gateway.js"
import type { Call } from "../wire/dialect.js"
import { sha256 } from "./credentials.js"
import * as Lru from "./lru.js"

/**
 * The headers a client names its session by, in the order they are read: Claude Code's, Codex's
 * (`session-id`, `thread-id`, as it sends them; the underscored forms as older versions and other
 * clients do), opencode's, and the gateway's own.
 */
const sessionHeaders = [
  "x-claude-code-session-id",
  "session-id",
  "thread-id",
  "session_id",
  "conversation_id",
  "x-session-id",
  "x-fallback-conversation"
]

const textOf = (message: Prompt.Message | undefined): string => {
  if (message === undefined) return ""
  if (typeof message.content === "string") return message.content
  return message.content.map((part) => (part.type === "text" ? part.text : `[${part.type}]`)).join("\n")
}

/**
 * What names a conversation: the client's session header, else what its body names it by
 * (`prompt_cache_key`…), else a hash of its wire, system prompt and first user message (the same
 * on every turn of it).
 *
 * @internal
 */
export const conversationOf = (headers: Headers.Headers, call: Call): string => {
  for (const name of sessionHeaders) {
    const value = headers[name]
    if (value !== undefined && value !== "") return `${name}:${value}`
  }
  if (call.conversation !== undefined && call.conversation !== "") return `body:${call.conversation}`
  const messages = call.prompt.content
  const system = messages.filter((message) => message.role === "system").map(textOf).join("\n")
  const first = textOf(messages.find((message) => message.role === "user"))
  return `hash:${sha256(JSON.stringify([call.wire, system, first])).slice(0, 32)}`
}

/**
 * One conversation: its id (what names it, the place it started at and the caller's key
 * fingerprint, hashed), where it starts, and the caller's account when its key is passed through.
 *
 * @internal
 */
export class Conversation {
  /** What the gateway keeps it by: the plain form of what its id hashes. */
  readonly key: string
  constructor(
    named: string,
    readonly start: Place.Place,
    readonly caller: Account.Account | undefined
  ) {
    this.key = `${Place.format(start)}\n${caller?.name ?? ""}\n${named}`
  }
  get id(): string {
    let id = ids.get(this.key)
    if (id === undefined) {
      id = sha256(this.key).slice(0, 32)
      if (ids.size >= 10_000) ids.clear()
      ids.set(this.key, id)
    }
    return id
  }
}

// Each conversation's id, hashed once (its turns each ask for it).
const ids = new Map<string, string>()

const bare = (place: Place.Place) => new Place.Place({ cli: place.cli, model: place.model })

/** Steps read for a place at the caller's account as for the place itself: the caller's key starts the same chain. */
const stepsFor = (steps: Steps.Service, caller: string): Steps.Service => {
  const own = (input: Steps.PlaceInput): input is Place.Place => typeof input !== "string" && input.account === caller
  return {
    ...steps,
    get: (input) => steps.get(own(input) ? bare(input) : input),
    chain: (input) =>
      own(input)
        ? Effect.map(steps.chain(bare(input)), (links) => [input, ...links.slice(1)])
        : steps.chain(input)
  }
}

/** The config's accounts, with the caller's first at its CLI. */
const accountsFor = (
  accounts: Option.Option<Accounts.Accounts.Service>,
  cli: string,
  caller: Account.Account
): Accounts.Accounts.Service => {
  const listOf = (of: string) => Option.match(accounts, { onNone: () => Effect.succeed([]), onSome: (s) => s.list(of) })
  const edit = <A extends ReadonlyArray<unknown>>(
    f: (service: Accounts.Accounts.Service) => (...args: A) => Effect.Effect<void, Accounts.AccountsError>
  ) =>
  (...args: A) => Option.match(accounts, { onNone: () => Effect.void, onSome: (service) => f(service)(...args) })
  return {
    list: (of) =>
      of === cli
        ? Effect.map(listOf(of), (list) => [caller, ...list.filter((account) => account.name !== caller.name)])
        : listOf(of),
    add: edit((service) => service.add),
    remove: edit((service) => service.remove),
    order: edit((service) => service.order)
  }
}

/** @internal */
export type Conversations = Lru.Lru<
  Conversation,
  LanguageModel.LanguageModel,
  Agent.SettingsRefused | Place.InvalidPlace
>

/**
 * The conversations a gateway keeps: one chain's `LanguageModel` each, made at the place it
 * started, whose agent stays where it moved; held while used and for the idle time after. At
 * capacity the least recently used conversation that no request is answering right now is closed
 * to make room.
 *
 * @internal
 */
export const make = (
  options: Gateway.Options,
  backends: Backend.Service,
  context: Context.Context<Steps.Steps>
): Effect.Effect<Conversations, never, Scope.Scope> =>
  Lru.make({
    lookup: (conversation: Conversation) => open(conversation, options, backends, context),
    keyOf: (conversation) => conversation.key,
    idle: options.conversations?.idle ?? "1 hour",
    capacity: options.conversations?.capacity ?? 10_000
  })

/** A conversation's model (its agent's context: the gateway's backends, and the caller's account first where it has one). @internal */
export const open = (
  conversation: Conversation,
  options: Gateway.Options,
  backends: Backend.Service,
  context: Context.Context<Steps.Steps>
) => {
  const { caller, start } = conversation
  let agentContext = Context.add(context, Backend.Backends, backends)
  if (caller !== undefined) {
    agentContext = agentContext.pipe(
      Context.add(Steps.Steps, stepsFor(Context.get(context, Steps.Steps), caller.name)),
      Context.add(
        Accounts.Accounts,
        accountsFor(Context.getOption(context, Accounts.Accounts), start.cli, caller)
      )
    )
  }
  return FallbackAi.make(start, options.agent).pipe(Effect.provideContext(agentContext as Context.Context<any>))
}
