import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Scope from "effect/Scope"
import type * as Account from "../../Account.js"
import type * as Accounts from "../../Accounts.js"
import type * as Backend from "../../Backend.js"
import * as Failure from "../../Failure.js"
import * as Place from "../../Place.js"
import type * as Settings from "../../Settings.js"

const key = Place.format

/**
 * The sessions an agent holds, one per place a turn reached: each built the first time a turn
 * needs it (opened in a scope of its own, as the place's account with the agent's settings) and held until
 * the agent's scope closes, or until a go at its place asks for it to be reopened.
 *
 * @internal
 */
export interface StandIns {
  /** The backend that runs a place, or the failure of having none. */
  readonly backendOf: (place: Place.Place) => Result.Result<Backend.Backend, Failure.Failure>
  /** The session already open at a place, if any. */
  readonly open: (place: Place.Place) => Backend.Session | undefined
  /** The session at a place, opened the first time. */
  readonly hold: (place: Place.Place) => Effect.Effect<Backend.Session, Failure.Failure>
  /** Lets a place's session go, to be opened again (resuming `resume`) on the next go. */
  readonly reopen: (place: Place.Place, resume: Option.Option<string>) => Effect.Effect<void>
  /** Says how a place's session is to be opened the next time: resuming a conversation, or fresh. */
  readonly openNext: (place: Place.Place, resume: Option.Option<string>) => void
}

/** @internal */
export const make = (options: {
  readonly backends: Backend.Service
  readonly accounts: Option.Option<Accounts.Accounts.Service>
  readonly settings: Settings.Settings
  readonly scope: Scope.Scope
}): StandIns => {
  const { accounts, backends, scope: agentScope, settings } = options
  const openings = new Map<string, Backend.Opening>()
  const held = new Map<string, { readonly session: Backend.Session; readonly scope: Scope.Closeable }>()

  const notInstalled = (place: Place.Place) =>
    new Failure.NotInstalled({
      place,
      said: Failure.said(`no backend runs ${place.cli}`),
      install: `a backend for ${place.cli}`
    })
  const backendOf = (place: Place.Place) =>
    Option.match(backends.get(place.cli), {
      onNone: (): Result.Result<Backend.Backend, Failure.Failure> => Result.fail(notInstalled(place)),
      onSome: Result.succeed
    })
  const accountOf = (place: Place.Place) =>
    place.account === undefined || Option.isNone(accounts)
      ? Effect.succeed(Option.none<Account.Account>())
      : accounts.value.list(place.cli).pipe(
        Effect.map((list) => Option.fromNullishOr(list.find((account) => account.name === place.account))),
        Effect.orElseSucceed(() => Option.none<Account.Account>())
      )

  const standIn = (place: Place.Place) =>
    Effect.gen(function*() {
      const backend = yield* Effect.fromResult(backendOf(place))
      return yield* backend.open(place, yield* accountOf(place), settings, openings.get(key(place)) ?? {})
    })

  const openNext = (place: Place.Place, resume: Option.Option<string>) =>
    void openings.set(key(place), Option.match(resume, { onNone: () => ({}), onSome: (id) => ({ resume: id }) }))

  return {
    backendOf,
    open: (place) => held.get(key(place))?.session,
    hold: (place) =>
      Effect.suspend(() => {
        const found = held.get(key(place))
        if (found !== undefined) return Effect.succeed(found.session)
        return Effect.gen(function*() {
          const scope = yield* Scope.fork(agentScope, "sequential")
          // Opened in a scope of its own (not built as a Layer: a Layer's memo map and context
          // would be held with every idle session), closed when the place is reopened.
          const session = yield* Scope.provide(standIn(place), scope).pipe(
            Effect.onError(() => Scope.close(scope, Exit.void))
          )
          held.set(key(place), { session, scope })
          return session
        })
      }),
    reopen: (place, resume) =>
      Effect.suspend(() => {
        const found = held.get(key(place))
        held.delete(key(place))
        openNext(place, resume)
        return found === undefined ? Effect.void : Scope.close(found.scope, Exit.void)
      }),
    openNext
  }
}
