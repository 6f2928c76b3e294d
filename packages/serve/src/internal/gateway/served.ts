import type * as Accounts from "@fallback/core/Accounts"
import type * as Backend from "@fallback/core/Backend"
import type * as Health from "@fallback/core/Health"
import * as Place from "@fallback/core/Place"
import type * as Steps from "@fallback/core/Steps"
import type * as LanguageModel from "effect/ai/LanguageModel"
import * as Clock from "effect/Clock"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"

import type * as Gateway from "../../Gateway.js"
import type { Failed } from "../wire/dialect.js"
import { type Conversation, type Conversations, open } from "./conversations.js"
import { allCooling, coolingFor, failedOf } from "./failed.js"
import type { Routes } from "./route.js"

/** What a gateway's routes share. @internal */
export interface Served {
  readonly options: Gateway.Options
  readonly routes: Routes
  readonly backends: Backend.Service
  readonly context: Context.Context<Steps.Steps>
  readonly steps: Steps.Service
  readonly health: Health.Health.Service
  readonly accounts: Option.Option<Accounts.Accounts.Service>
  readonly conversations: Conversations
}

/**
 * A conversation's model for the scope, and whether it is the one the conversation keeps: at
 * capacity the least recently used idle conversation makes room; only when every slot answers a
 * request right now is this one's model made for this request alone (`kept: false`), so its next
 * turn starts at its start again.
 *
 * @internal
 */
export const modelFor = (
  served: Served,
  conversation: Conversation
): Effect.Effect<{ readonly model: LanguageModel.LanguageModel; readonly kept: boolean }, unknown, Scope.Scope> =>
  served.conversations.get(conversation).pipe(
    Effect.map((model) => ({ model, kept: true })),
    Effect.catchTag("Full", () =>
      Effect.map(
        open(conversation, served.options, served.backends, served.context) as Effect.Effect<
          LanguageModel.LanguageModel,
          unknown,
          Scope.Scope
        >,
        (model) => ({ model, kept: false })
      ))
  )

/** Every place a conversation's turn may go: its start, its CLI's accounts after it, and the chain's places. */
const placesOf = (served: Served, start: Place.Place): Effect.Effect<ReadonlyArray<Place.Place>> =>
  Effect.gen(function*() {
    const bare = new Place.Place({ cli: start.cli, model: start.model })
    const links = yield* served.steps.chain(bare).pipe(Effect.orElseSucceed(() => [bare]))
    const accounts = Option.isNone(served.accounts)
      ? []
      : yield* served.accounts.value.list(start.cli).pipe(Effect.orElseSucceed(() => []))
    return [
      start,
      ...accounts.map((account) => new Place.Place({ cli: start.cli, account: account.name, model: start.model })),
      ...links.slice(1)
    ]
  })

/**
 * What a chain that gave up is to the client: its failure, or, when every place it may go is
 * cooling, the rate-limit error with the wait to the soonest.
 *
 * @internal
 */
export const gaveUp = (served: Served, start: Place.Place, error: unknown): Effect.Effect<Failed> =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const failed = failedOf(error, now)
    if (failed.status >= 400 && failed.status < 500 && failed.status !== 429) return failed
    const places = yield* placesOf(served, start)
    const seconds = coolingFor(yield* served.health.snapshot, places, now)
    return seconds === undefined ? failed : allCooling(failed, seconds)
  })
